"""The README's local links resolve, and the rules docs keep up with what the engines know.

The docs are written by hand, so these checks are what stop a new villain, card, Plan type or
option from reaching the code without reaching the page players read.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from geometry import GeometrySettings
from geometry.settings import CLOSE_CALL_POLICIES
from referee.games import GAMES, SetupError
from referee.masterplan.config import DECK_MODES, VILLAINS, MasterPlanConfig
from referee.masterplan.deck import PRIMITIVES, default_deck
from referee.theplan.components import default_components
from referee.theplan.config import MODES, GameConfig

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MASTERPLAN_DOC = ROOT / "docs" / "rules-masterplan.md"
THEPLAN_DOC = ROOT / "docs" / "rules-theplan.md"

# [text](target) and [label]: target; fenced code is left out (it may show link-like text).
INLINE_LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.MULTILINE)


def _without_code_blocks(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)


def _links(path: Path) -> list[str]:
    text = _without_code_blocks(path.read_text(encoding="utf-8"))
    return INLINE_LINK.findall(text) + REFERENCE_LINK.findall(text)


def _anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    out = set()
    for line in _without_code_blocks(path.read_text(encoding="utf-8")).splitlines():
        m = re.match(r"#{1,6}\s+(.*)", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            out.add(slug)
    return out


def _local(target: str) -> bool:
    return not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) and not target.startswith("#")


def test_readme_local_links_resolve():
    links = [t for t in _links(README) if _local(t)]
    assert links, "the README links no local file; the rules docs at least should be linked"
    broken = []
    for target in links:
        file_part, _, anchor = target.partition("#")
        path = (README.parent / file_part).resolve()
        if not path.is_relative_to(ROOT) or not path.exists():
            broken.append(f"{target}: {file_part} is not in the repository")
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
            broken.append(f"{target}: {path.name} has no heading #{anchor}")
    assert not broken, "README links that do not resolve:\n" + "\n".join(broken)


def test_readme_links_both_rules_docs():
    targets = {t.partition("#")[0] for t in _links(README)}
    assert {"docs/rules-masterplan.md", "docs/rules-theplan.md"} <= targets


def test_readme_in_page_anchors_resolve():
    anchors = _anchors(README)
    missing = [t for t in _links(README) if t.startswith("#") and t[1:] not in anchors]
    assert not missing, f"README links to headings it does not have: {missing}"


def _cli_options(game: str, players: list[str]) -> list[str]:
    """The --option keys a game's setup knows, from its own 'unknown option' message, so a new
    option shows up here without this test being edited."""
    with pytest.raises(SetupError) as exc:
        GAMES[game].make_config(players, {"no-such-option-xyz": "1"})
    known = str(exc.value).split("this game knows:", 1)[1]
    keys = re.findall(r"([a-z_]+)=", known)
    assert keys, f"no option keys found in {exc.value}"
    return keys


def _missing(doc: Path, names: list[str]) -> list[str]:
    text = doc.read_text(encoding="utf-8")
    return sorted({n for n in names if n not in text})


def test_masterplan_doc_names_everything_the_engine_knows():
    deck = default_deck()
    names = [
        *VILLAINS,
        *deck.names,
        *PRIMITIVES,
        *DECK_MODES,
        *CLOSE_CALL_POLICIES,
        *(f.name for f in dataclasses.fields(MasterPlanConfig)),
        *(f.name for f in dataclasses.fields(GeometrySettings)),
        *_cli_options("masterplan", ["ann", "bob", "cat"]),
    ]
    assert not _missing(MASTERPLAN_DOC, names), (
        f"{MASTERPLAN_DOC.name} does not mention: {', '.join(_missing(MASTERPLAN_DOC, names))}"
    )


def test_masterplan_doc_gives_the_default_deck_counts():
    # The table row "| name | count |" must match the bundled deck file.
    text = MASTERPLAN_DOC.read_text(encoding="utf-8")
    deck = default_deck()
    for card in deck.cards:
        assert re.search(rf"^\| {re.escape(card.name)} \| {card.count} \|", text, re.MULTILINE), (
            f"{MASTERPLAN_DOC.name}: the deck table should list {card.name} with {card.count} copies"
        )
    assert f"{deck.size}-card deck" in text


def test_theplan_doc_names_everything_the_engine_knows():
    comps = default_components()
    names = [
        *comps.treasure_kinds.values(),
        *comps.trinket_kinds.values(),
        *(t.name for t in comps.plan_types),
        *(t.id for t in comps.plan_types),
        *MODES,
        *(f.name for f in dataclasses.fields(GameConfig)),
        *_cli_options("theplan", ["ann", "bob", "cat"]),
    ]
    assert not _missing(THEPLAN_DOC, names), (
        f"{THEPLAN_DOC.name} does not mention: {', '.join(_missing(THEPLAN_DOC, names))}"
    )


def test_theplan_doc_gives_the_default_plan_counts():
    text = THEPLAN_DOC.read_text(encoding="utf-8")
    comps = default_components()
    for t in comps.plan_types:
        assert re.search(rf"^\| {re.escape(t.name)} \| {t.count} \|", text, re.MULTILINE), (
            f"{THEPLAN_DOC.name}: the Plan table should list {t.name} with {t.count} cards"
        )
    assert f"{len(comps.plans)} cards" in text


def test_the_docs_the_code_cites_are_in_the_repository():
    """Code comments point at docs/architecture.md and the rules docs; the design notes they once
    cited (DESIGN.md, RULINGS.md) are not in the repository."""
    cited, stale = set(), []
    for path in ROOT.rglob("*.py"):
        if any(part.startswith(".") for part in path.relative_to(ROOT).parts):
            continue
        text = path.read_text(encoding="utf-8")
        cited |= set(
            re.findall(r"docs/[a-z0-9_.-]+\.md", text)
        )  # lower case: not a placeholder (rules-GAME.md)
        if re.search(r"\b(DESIGN|RULINGS)\.md\b", text) and path != Path(__file__):
            stale.append(str(path.relative_to(ROOT)))
    assert not stale, f"these cite docs that are not in the repository: {stale}"
    assert {"docs/architecture.md", "docs/rules-masterplan.md", "docs/rules-theplan.md"} <= cited
    assert all((ROOT / doc).exists() for doc in cited), sorted(d for d in cited if not (ROOT / d).exists())
