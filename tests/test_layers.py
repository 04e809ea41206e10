"""Imports only go down the layers (docs/architecture.md, "Layers"): an ast walk over every module
of the packages, lazy imports inside functions included.

    geometry, calibration   import nothing of ours
    vision                  may use calibration
    the rules engines       (referee.masterplan, referee.theplan) use only geometry and the
                            referee's shared events and errors (referee.events, referee.errors)
    the referee service     (the rest of referee/) wires engines, vision and calibration
    display                 uses the referee's message schema (referee.protocol) and calibration
    tabletop (the CLI)      wires everything; nothing imports it
    vision.synthetic        (the test-scene renderer) only tests, benches, training and itself
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("geometry", "calibration", "vision", "referee", "display", "web", "tabletop", "bench")
OURS = (*PACKAGES, "tests")

SHARED = ("referee.events", "referee.errors")  # below both engines
ENGINES = ("referee.masterplan", "referee.theplan")
SYNTHETIC = "vision.synthetic"
# Who may import the test-scene renderer besides tests and benches: itself, and training, whose
# data are rendered scenes (vision/train/data.py).
SYNTHETIC_USERS = (SYNTHETIC, "vision.train", "bench")

# Each layer (the longest matching prefix) and the modules of ours it may import.
ALLOWED: dict[str, tuple[str, ...]] = {
    "geometry": ("geometry",),
    "calibration": ("calibration",),
    "vision": ("vision", "calibration"),
    "referee.masterplan": ("referee.masterplan", "geometry", *SHARED),
    "referee.theplan": ("referee.theplan", "geometry", *SHARED),
    "referee.events": (),
    "referee.errors": (),
    "referee": ("referee", "geometry", "vision", "calibration"),
    "display": ("display", "calibration", "referee.protocol"),
    # The web gateway is one more display client: the message schema, the client connection, and
    # the overview's sentences for events (display.words) so the pages need no copy of them.
    "web": ("web", "referee.protocol", "referee.client", "display.words"),
    "tabletop": PACKAGES,
    "bench": tuple(p for p in PACKAGES if p != "tabletop"),
}


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _layer(module: str) -> str:
    return max((p for p in ALLOWED if _within(module, p)), key=len)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module of ours that `path` imports, anywhere in it (top level or inside a function):
    (line, module). `from X import y` counts as X.y when X.y is a module, else as X."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package, up level - 1
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                as_module = (
                    ROOT.joinpath(*sub.split(".")).with_suffix(".py").exists()
                    or ROOT.joinpath(*sub.split(".")).is_dir()
                )
                out.append((node.lineno, sub if as_module else base))
    return [(line, name) for line, name in out if name.split(".")[0] in OURS]


def _modules() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def _breaks() -> list[str]:
    found = []
    for path in _modules():
        module = _module_name(path)
        allowed = ALLOWED[_layer(module)]
        for line, imported in _imports(path):
            where = f"{path.relative_to(ROOT)}:{line} imports {imported}"
            if _within(imported, "tests"):
                found.append(f"{where}: product code never imports the tests")
            elif _within(imported, SYNTHETIC) and not any(_within(module, u) for u in SYNTHETIC_USERS):
                found.append(f"{where}: the test-scene renderer is for tests, benches and training only")
            elif _within(imported, "tabletop") and not _within(module, "tabletop"):
                found.append(f"{where}: nothing imports the CLI")
            elif not any(_within(imported, a) for a in allowed):
                found.append(
                    f"{where}: the {_layer(module)} layer may import only {', '.join(allowed) or 'nothing of ours'}"
                )
    return list(dict.fromkeys(found))


def test_imports_only_go_down_the_layers():
    assert _modules(), "no modules found"
    assert _breaks() == []


@pytest.mark.parametrize(
    ("source", "module", "expected"),
    [
        ("import referee.client\n", "display.live", "referee.client"),
        ("def f():\n    from referee.theplan import components\n", "display.x", "referee.theplan.components"),
        ("from . import state\n", "referee.masterplan.game", "referee.masterplan.state"),
        ("from .state import X\n", "referee.masterplan.game", "referee.masterplan.state"),
    ],
)
def test_the_walk_sees_lazy_and_relative_imports(tmp_path, monkeypatch, source, module, expected):
    path = ROOT.joinpath(*module.split(".")).with_suffix(".py")
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: source)
    assert expected in [name for _, name in _imports(path)]


def test_a_display_reaching_into_an_engine_is_caught():
    assert not any(
        _within("referee.theplan.components", a) for a in ALLOWED[_layer("display.theplan_overview")]
    )
    assert not any(_within("referee.client", a) for a in ALLOWED[_layer("display.live")])
    assert not any(_within("referee.session", a) for a in ALLOWED[_layer("referee.masterplan.game")])
    assert any(_within("referee.events", a) for a in ALLOWED[_layer("referee.theplan.game")])
