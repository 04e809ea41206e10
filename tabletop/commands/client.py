"""`tabletop client`: a player's terminal at the table - see the game, see your own hand, act.

A line-oriented REPL: after each command it shows a short screen (the table, your hand, whose
turn, the last events in words, and the numbered commands you may send now). `--json` keeps the
raw replies for scripts."""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from collections import deque
from collections.abc import Iterator
from dataclasses import MISSING, fields
from functools import cache
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markdown import Markdown
from rich.markup import escape

from display.words import QUIET, last_lines
from referee.client import (
    Connection,
    ServiceUnavailable,
    StateMirror,
    check_referee,
    normalise_endpoint,
    updates_endpoint,
)
from referee.games import GAMES, find_seat
from referee.keys import KeyFileError, client_keypair, public_key_file
from tabletop.commands import CommandError

SERVICE_WORDS = {
    "state": "the table again",
    "view": "your own view again (hand, what you know)",
    "events": "the latest events, in words",
    "help": "this text; 'help COMMAND' explains a command's fields; 'help rules' the game's rules",
    "quit": "leave (the game goes on)",
}
LAST_EVENTS = 6  # on the screen after each command; `events` shows more
EVENTS_LISTED = 20

_FIELD_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")

# What a field's value looks like, by its type in the command's definition (annotations are
# strings under `from __future__`). The engines' own names for their types.
_KIND_WORDS = {
    "str": ("text", "an id or name, e.g. S4"),
    "str | None": ("text", "an id or name"),
    "bool": ("bool", "true or false"),
    "int | None": ("int", "a number"),
    "int": ("int", "a number"),
    "float": ("float", "a number"),
    "tuple[str, ...]": ("list", 'a list of ids: A,B or ["A","B"]'),
    "Corners": ("json", "4 corners in table mm: [[x,y],[x,y],[x,y],[x,y]]"),
    "tuple[tuple[str, Corners], ...]": ("json", '{"S2": 4 corners, "S3": 4 corners}'),
}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "client",
        help="a player's terminal: see the table and your hand, and send your moves",
        description="Connect to a running 'tabletop referee' as one seat.",
    )
    p.add_argument(
        "--connect",
        default="tcp://127.0.0.1:5555",
        help="the referee's command address, HOST:PORT or tcp://HOST:PORT (default: %(default)s)",
    )
    p.add_argument("--player", required=True, help="your seat name")
    p.add_argument(
        "--token",
        help="your seat's token, shown when you first joined: to join again from another terminal or machine",
    )
    p.add_argument(
        "--server-key", metavar="FILE", help="the referee's public key (server.key), with --secure"
    )
    p.add_argument("--key", metavar="FILE", help="your own key file (NAME.key_secret), with --secure")
    p.add_argument(
        "--do", action="append", default=[], metavar="COMMAND", help="run these commands and exit (scripting)"
    )
    p.add_argument(
        "--json", action="store_true", help="print the referee's raw JSON replies and views (for scripts)"
    )
    p.set_defaults(run=run)


# ---- the commands of a game, from their definitions --------------------------------------------
@cache
def command_types(game: str) -> dict[str, Any]:
    """The game's command classes by type ({} for an unknown game)."""
    adapter = GAMES.get(game)
    return dict(adapter.engine.COMMAND_TYPES) if adapter is not None else {}


def _fields(game: str, kind: str) -> dict[str, Any]:
    cls = command_types(game).get(kind)
    return {f.name: f for f in fields(cls) if f.name != "player"} if cls else {}


def _kind(game: str, command: str, name: str) -> str:
    f = _fields(game, command).get(name)
    return _KIND_WORDS.get(str(f.type), ("json", ""))[0] if f else "json"


def command_help(game: str, kind: str) -> str:
    """What `kind` does and every field it takes, written from the command's definition."""
    cls = command_types(game).get(kind)
    if cls is None:
        known = ", ".join(sorted(command_types(game))) or "none"
        return f"there is no command {kind!r} in this game; commands: {known}"
    doc = " ".join((cls.__doc__ or "").split())
    lines = [f"{kind}: {doc}"]
    spec = _fields(game, kind)
    if not spec:
        lines.append("  no fields")
    for name, f in spec.items():
        what = _KIND_WORDS.get(str(f.type), ("", str(f.type)))[1]
        if f.default is MISSING:
            need = "needed"
        else:
            need = "optional" if f.default is None else f"optional, default {json.dumps(f.default)}"
        lines.append(f"  {name}=  {what} ({need})")
    example = " ".join(f"{n}=..." for n, f in spec.items() if f.default is MISSING)
    lines.append(f"  e.g. {kind} {example}".rstrip())
    return "\n".join(lines)


def rules_file(game: str) -> Path | None:
    """docs/rules-GAME.md of the project: beside the installed package (a clone or an editable
    install) or in the folder the client runs from (the clone's root)."""
    name = Path("docs") / f"rules-{game}.md"
    for root in (Path(__file__).resolve().parents[2], Path.cwd()):
        if (root / name).is_file():
            return root / name
    return None


def general_help(game: str) -> str:
    lines = ["Type the number of a command listed under 'you can now', or a command as",
             "  TYPE FIELD=VALUE ...   e.g. move to=S4, choose_target spaces=S4,S5, pass_plans plans=a,b",
             "(lists as a,b or JSON [\"a\",\"b\"]; text with spaces in quotes; or a whole JSON object).",
             "Commands of this game: " + ", ".join(sorted(command_types(game)))]  # fmt: skip
    lines += [f"  {word:<7} {what}" for word, what in SERVICE_WORDS.items()]
    return "\n".join(lines)


# ---- reading what the player types --------------------------------------------------------------
def parse_line(line: str, game: str = "", options: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A typed line as a command: 'N' (the Nth listed option, extra FIELD=VALUE allowed),
    'TYPE FIELD=VALUE ...' (values read by each field's type) or a whole JSON object.
    Raises ValueError with a message for the player."""
    line = line.strip()
    if line.startswith("{"):
        try:
            msg = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"that JSON does not parse: {exc.msg} at character {exc.pos}") from None
        if not isinstance(msg, dict) or "type" not in msg:
            raise ValueError('a JSON command is an object with a "type"')
        return msg
    head, _, rest = line.partition(" ")
    if head.isdigit():
        listed = options or []
        if not 1 <= int(head) <= len(listed):
            raise ValueError(
                f"there is no option {head}; "
                + (f"choose 1 to {len(listed)}" if listed else "nothing is listed for you right now")
            )
        msg = {k: v for k, v in listed[int(head) - 1].items() if k != "player"}
    else:
        msg = {"type": head}
    msg.update(_read_fields(rest, game, msg["type"]))
    return msg


def _read_fields(text: str, game: str, kind: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            return out
        match = _FIELD_RE.match(text, pos)
        if match is None:
            word = text[pos:].split()[0]
            raise ValueError(f"{word!r} should be FIELD=VALUE (see 'help {kind}')")
        name, pos = match.group(1), match.end()
        value, pos = _read_value(text, pos, name)
        out[name] = _convert(value, _kind(game, kind, name), name)


def _read_value(text: str, pos: int, name: str) -> tuple[Any, int]:
    """One value from `pos`: a JSON list/object as a whole (it may hold spaces), else one shell
    word (quotes allowed). Returns (value, end); JSON values come back parsed, words as str."""
    if pos < len(text) and text[pos] in "[{":
        try:
            value, end = json.JSONDecoder().raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{name}= holds JSON that does not parse: {exc.msg}") from None
        return value, end
    lexer = shlex.shlex(text[pos:], posix=True)
    lexer.whitespace_split = True
    try:
        word = lexer.get_token()
    except ValueError as exc:  # an unclosed quote
        raise ValueError(f"{name}=: {exc}") from None
    return ("" if word is None else str(word)), pos + lexer.instream.tell()


def _convert(value: Any, kind: str, name: str) -> Any:
    if not isinstance(value, str):  # JSON list or object
        return value
    word = value
    if kind == "text":
        return word
    if kind == "list":
        return [part.strip() for part in word.split(",") if part.strip()]
    if kind == "bool":
        lowered = word.lower()
        if lowered in ("true", "yes", "y", "1", "on"):
            return True
        if lowered in ("false", "no", "n", "0", "off"):
            return False
        raise ValueError(f"{name}= must be true or false, not {word!r}")
    if kind in ("int", "float"):
        try:
            return int(word) if kind == "int" else float(word)
        except ValueError:
            raise ValueError(f"{name}= must be a number, not {word!r}") from None
    try:  # a field this client does not know: JSON where it parses, else the text itself
        return json.loads(word)
    except json.JSONDecodeError:
        return word


def format_command(option: dict[str, Any]) -> str:
    """A command as the player would type it; parse_line reads it back to the same command."""
    parts = [str(option["type"])]
    for key, value in option.items():
        if key in ("type", "player"):
            continue
        if value is None:
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, list) and value and all(isinstance(v, str) and "," not in v for v in value):
            text = shlex.quote(",".join(value))
        elif isinstance(value, str):
            text = shlex.quote(value)
        else:
            text = json.dumps(value, separators=(",", ":"))
        parts.append(f"{key}={text}")
    return " ".join(parts)


# ---- the screen -----------------------------------------------------------------------------------
@cache
def _space_texts() -> dict[str, str]:
    from referee.masterplan import default_deck

    return {c.name: c.text for c in default_deck().cards}


@cache
def _plan_words() -> dict[str, str]:
    from referee.theplan.components import default_components

    comps = default_components()
    out = {}
    for plan in comps.plans.values():
        kind = comps.plan_type(plan.type).name
        experts = ", ".join(comps.treasure_kinds.get(e, e) for e in plan.experts)
        out[plan.id] = kind + (f" - experts: {experts}" if experts else "")
    return out


def screen_lines(view: dict[str, Any], events: list[dict[str, Any]], game: str) -> list[str]:
    """The player's screen as lines of rich markup, from their own view (so only their hand)."""
    lines = _masterplan_lines(view) if game == "masterplan" else _theplan_lines(view)
    shown = last_lines(events, LAST_EVENTS)
    if shown:
        lines.append("[bold]Last events[/bold]")
        lines += [f"  {escape(s)}" for s in shown]
    lines += option_lines(view)
    return lines


def _masterplan_lines(view: dict[str, Any]) -> list[str]:
    you = view.get("you")
    if view.get("game_over"):
        head = f"[bold]Game over[/bold]: {escape(str(view.get('winner') or 'nobody'))} wins"
    else:
        whose = "your" if view.get("current") == you else f"{view.get('current')}'s"
        head = f"[bold]Turn {view.get('turn')}[/bold]: {escape(whose)} turn, {view.get('step')} step"
    lines = [head + f"   (deck {view.get('deck_size')}, discard {view.get('discard_size')})"]
    waiting = view.get("waiting")
    if waiting:
        what = waiting.get("for", "").replace("_", " ")
        lines.append(f"  waiting for {escape(str(waiting.get('player') or 'the table'))}: {what}")
    camera = view.get("camera") or {}
    if camera.get("waiting_for"):  # a camera referees: what it waits for before it goes on
        lines.append(f"  camera: {escape(str(camera['waiting_for']))}")
    lines.append("[bold]Players[/bold]")
    for p in view.get("players", []):
        mark = " (you)" if p["name"] == you else ""
        gone = ", eliminated" if p.get("eliminated") else ""
        lines.append(
            f"  {escape(p['name'])}{mark}: {escape(p.get('villain') or '')} on {p.get('position')}, "
            f"{p.get('hand_size')} cards{gone}"
        )
    known = view.get("known_face_down") or {}
    lines.append("[bold]Table[/bold]")
    for s in view.get("table", []):
        if s["kind"] != "space":
            label = "Trophy" if s["kind"] == "trophy" else f"start of {s.get('owner')}"
        elif s.get("face_up"):
            label = str(s.get("name"))
        else:
            label = "face down" + (f" (you know: {known[s['space']]})" if s["space"] in known else "")
        pawns = f"  pawns: {', '.join(s['pawns'])}" if s.get("pawns") else ""
        lines.append(f"  {escape(s['space'])}: {escape(label)}{escape(pawns)}")
    hand = view.get("hand")
    lines.append("[bold]Your hand[/bold]")
    if hand is None:
        lines.append("  real cards: look at them")
    elif not hand:
        lines.append("  empty")
    for c in hand or []:
        text = _space_texts().get(c["name"], "")
        lines.append(f"  card {c['card']}: [bold]{escape(c['name'])}[/bold] - {escape(text)}")
    return lines


def _theplan_lines(view: dict[str, Any]) -> list[str]:
    me = view.get("you") or {}
    you = me.get("player")
    if view.get("result"):
        head = f"[bold]Game over[/bold]: {escape(json.dumps(view['result']))}"
    else:
        head = (
            f"[bold]Round {view.get('round')}, turn {view.get('turn')}[/bold]: {view.get('phase')}"
            + (f", {view.get('step')}" if view.get("step") else "")
            + (f" (stage {view.get('stage')})" if view.get("stage") else "")
        )
    to_act = ["you" if p == you else p for p in view.get("to_act", [])]
    lines = [head, f"  waiting for: {escape(', '.join(to_act) or 'nobody')}"]
    face_up = view.get("face_up", {})
    lines.append("[bold]Table[/bold]")
    lines.append(f"  treasures: {escape(', '.join(face_up.get('treasures', [])) or 'none')}")
    lines.append(f"  trinkets: {escape(', '.join(face_up.get('trinkets', [])) or 'none')}")
    for who, plan in (view.get("plans_revealed") or {}).items():
        lines.append(f"  {escape(who)} plays {escape(str(plan))}")
    lines.append("[bold]Players[/bold]")
    for name, p in (view.get("players") or {}).items():
        mark = " (you)" if name == you else ""
        score = p.get("score", {})
        total = score.get("score", score) if isinstance(score, dict) else score
        lines.append(
            f"  {escape(name)}{mark}: {p.get('hand')} Plans in hand, "
            f"{len(p.get('treasures', []))} treasures, {len(p.get('trinkets', []))} trinkets, score {total}"
        )
    lines.append("[bold]Your hand[/bold]")
    hand = me.get("hand")
    if hand is None:
        lines.append("  real cards: look at them")
    elif not hand:
        lines.append("  empty")
    for plan in hand or []:
        lines.append(f"  [bold]{escape(plan)}[/bold]: {escape(_plan_words().get(plan, ''))}")
    for key in ("committed_plan", "pass", "bid"):
        if me.get(key):
            lines.append(f"  your {key.replace('_', ' ')}: {escape(json.dumps(me[key]))}")
    return lines


def option_lines(view: dict[str, Any]) -> list[str]:
    options = view.get("you_can") or []
    lines = []
    if view.get("step") == "add" and view.get("current") == view.get("you") and not view.get("waiting"):
        lines.append(
            "  place a card: "
            + escape("place_card card=N corners=[[x,y],[x,y],[x,y],[x,y]]  ('help place_card')")
        )
    if not options:
        return (
            ["[bold]You can now[/bold]", *lines]
            if lines
            else ["nothing to do right now (waiting for others)"]
        )
    lines = ["[bold]You can now[/bold] (type the number or the command)", *lines]
    lines += [f"  {n:>2}. {escape(format_command(o))}" for n, o in enumerate(options, 1)]
    return lines


# ---- completion -----------------------------------------------------------------------------------
def completions(text: str, line: str, game: str) -> list[str]:
    """What `text` (the word being typed in `line`) may complete to: command names, then
    FIELD= of the command typed."""
    words = line.split()
    if not words or (len(words) == 1 and not line.endswith(" ")):
        names = [*command_types(game), *SERVICE_WORDS]
        return sorted(n + " " for n in names if n.startswith(text))
    if words[0] == "help":
        return sorted(n + " " for n in command_types(game) if n.startswith(text))
    return sorted(f"{n}=" for n in _fields(game, words[0]) if n.startswith(text))


def _enable_completion(game: str) -> None:
    try:
        import readline
    except ImportError:  # no readline on this platform: typing still works
        return

    def complete(text: str, state: int) -> str | None:
        found = completions(text, readline.get_line_buffer()[: readline.get_endidx()], game)
        return found[state] if state < len(found) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" ")
    readline.parse_and_bind("tab: complete")


# ---- connecting and the loop ----------------------------------------------------------------------
def connect_args(args: argparse.Namespace) -> tuple[str, bytes | None, tuple[bytes, bytes] | None]:
    """--connect, --server-key and --key checked, and a referee found answering behind them:
    (command endpoint, server public key, client key pair). Shared with `tabletop display`."""
    if bool(args.server_key) != bool(args.key):
        raise CommandError(
            "a secure referee needs both --server-key (server.key) and --key (your .key_secret)"
        )
    try:
        endpoint = normalise_endpoint(args.connect)
        server_public = public_key_file(args.server_key) if args.server_key else None
        keys = client_keypair(args.key) if args.key else None
        # Once, with a short timeout: an absent referee or a --secure mismatch is said in seconds.
        check_referee(endpoint, server_public, keys)
    except (KeyFileError, ValueError) as exc:
        raise CommandError(str(exc)) from None
    except ServiceUnavailable as exc:
        raise CommandError(str(exc)) from None
    return endpoint, server_public, keys


def match_table_ids(msg: dict[str, Any], view: dict[str, Any]) -> None:
    """Space ids typed in another case ('s4', 'start:ann') become the table's own ('S4',
    'start:Ann'), matched like seat names."""
    ids = [s["space"] for s in view.get("table") or []]
    for key in ("to", "space", "spaces"):
        value = msg.get(key)
        if isinstance(value, str):
            msg[key] = find_seat(value, ids) or value
        elif isinstance(value, list):
            msg[key] = [find_seat(v, ids) or v if isinstance(v, str) else v for v in value]


class Terminal:
    """One player's session: what is shown, and the options last listed (for 'N')."""

    def __init__(self, mirror: StateMirror, conn: Connection, raw: bool) -> None:
        self.mirror, self.conn, self.raw = mirror, conn, raw
        self.console = Console(highlight=False, soft_wrap=True)
        self.game = mirror.game
        self.view: dict[str, Any] = {}
        self.private: deque[dict[str, Any]] = deque(maxlen=500)  # this seat's own messages
        self.confirm: str | None = None  # a line that asked "type it again to confirm"

    def show_rules(self) -> None:
        path = rules_file(self.game)
        if path is None:
            self.say(f"the rules are in docs/rules-{self.game}.md of the tabletop-referee project")
        elif self.raw:
            print(path.read_text(encoding="utf-8"))
        else:
            self.console.print(Markdown(path.read_text(encoding="utf-8")))

    def say(self, text: str) -> None:
        self.console.print(escape(text))

    def show_view(self, view: dict[str, Any]) -> None:
        self.view = view
        if self.raw:
            print(json.dumps(view, indent=1, sort_keys=True))
            return
        for line in screen_lines(view, self._events(), self.game):
            self.console.print(line)

    def _events(self) -> list[dict[str, Any]]:
        # This seat's private copy of an event says more (e.g. the card drawn) than the public one.
        mine = {m["seq"]: m["event"] for m in self.private}
        return [mine.get(seq, event) for seq, event in self.mirror.events]

    def refresh(self) -> None:
        for message in self.conn.poll_private():
            if message["event"].get("type") in QUIET:
                continue
            self.private.append(message)
            if self.raw:
                print("private:", json.dumps(message["event"], sort_keys=True))
        self.mirror.poll()

    def handle(self, line: str) -> None:
        word, _, rest = line.strip().partition(" ")
        self.refresh()
        if word == "help" and rest.strip() == "rules":
            self.show_rules()
        elif word == "help":
            self.say(command_help(self.game, rest.strip()) if rest.strip() else general_help(self.game))
        elif word == "state":
            if self.raw:
                print(json.dumps(self.mirror.state, indent=1, sort_keys=True))
            else:
                self.show_view(self._fresh_view())
        elif word == "events":
            if self.raw:
                for seq, event in self.mirror.events[-EVENTS_LISTED:]:
                    print(seq, json.dumps(event, sort_keys=True))
            else:
                shown = last_lines(self._events(), EVENTS_LISTED)
                self.say("\n".join(shown) if shown else "nothing has happened yet")
        elif word == "view":
            self.show_view(self._fresh_view())
        else:
            self.send(line)

    def _fresh_view(self) -> dict[str, Any]:
        return self.conn.request("view").get("view") or {}

    def send(self, line: str) -> None:
        try:
            msg = parse_line(line, self.game, self.view.get("you_can"))
        except ValueError as exc:
            self.say(f"not sent: {exc}")
            return
        match_table_ids(msg, self.view)
        if self._needs_confirmation(msg, line):
            return
        kind = msg.pop("type")
        reply = self.conn.request(kind, **msg)
        if self.raw:
            print(json.dumps(reply, sort_keys=True))
        elif reply.get("ok"):
            self.say(f"ok: {format_command({'type': kind, **msg})}")
        else:
            self.say(f"refused: {reply['error']['message']}")
        # The events of this command arrive on the updates socket right after the reply.
        self.mirror.poll(0.2)
        self.refresh()
        self.show_view(self._fresh_view())

    def _needs_confirmation(self, msg: dict[str, Any], line: str) -> bool:
        """A draw before moving gives up the move as well: asked once, sent when typed again."""
        view = self.view
        risky = (
            self.game == "masterplan"
            and msg.get("type") == "draw"
            and view.get("step") == "move"
            and any(o.get("type") == "move" for o in view.get("you_can") or [])
        )
        if not risky or self.confirm == line.strip():
            self.confirm = None
            return False
        self.confirm = line.strip()
        self.say("Drawing now skips your move and ends your turn. Type the same again to confirm.")
        return True


def run(args: argparse.Namespace) -> int:
    endpoint, server_public, keys = connect_args(args)
    try:
        mirror = StateMirror(endpoint, updates_endpoint(endpoint), server_public, keys)
        conn = Connection(endpoint, server_public, keys)
        joined = conn.join(args.player, token=args.token)
    except ServiceUnavailable as exc:
        raise CommandError(str(exc)) from None
    if not joined.get("ok"):
        raise CommandError(joined["error"]["message"])
    seat = joined["player"]  # the seat's own spelling, whatever case was typed
    term = Terminal(mirror, conn, args.json)
    term.say(f"joined as {seat} ({mirror.game}); type 'help' for commands, a number to pick an option")
    if "token" in joined:
        # Shown to this player only (the join reply goes to this connection alone).
        term.say(
            f"your seat token: {joined['token']} - keep it secret; to join as {seat} again elsewhere: "
            f"tabletop client --connect {endpoint} --player {shlex.quote(seat)} --token {joined['token']}"
        )
    term.show_view(joined["view"])
    interactive = not args.do and sys.stdin.isatty()
    if interactive:
        _enable_completion(mirror.game)
    lines = iter(args.do) if args.do else _prompt()
    try:
        for line in lines:
            if not line.strip():
                continue
            if line.strip() in ("quit", "exit"):
                break
            try:
                term.handle(line)
            except ServiceUnavailable as exc:
                term.say(str(exc))
            except KeyboardInterrupt:  # Ctrl-C while waiting for the referee: leave quietly
                break
    finally:
        mirror.close()
        conn.close()
    return 0


def _prompt() -> Iterator[str]:
    while True:
        try:
            yield input("> ")
        except (EOFError, KeyboardInterrupt):
            return
