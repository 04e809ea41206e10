"""Paths on the command line: photos given as files, folders or globs, and --out folders."""

from __future__ import annotations

import glob
from pathlib import Path

from tabletop.commands import CommandError
from vision.sources import IMAGE_SUFFIXES

# Names that say "a file": given to an option that writes a folder they are a mistake, not a wish
# for a folder called y.gif/.
FILE_SUFFIXES = IMAGE_SUFFIXES | {
    ".gif",
    ".mp4",
    ".avi",
    ".mov",
    ".mkv",
    ".webm",
    ".json",
    ".jsonl",
    ".txt",
    ".csv",
    ".pdf",
    ".html",
    ".sqlite",
    ".zip",
}
_GLOB_CHARS = set("*?[")


def image_paths(items: list[str], what: str = "photo") -> list[Path]:
    """Each item as a file, a folder (its images, sorted, not descending into sub-folders) or a
    glob (expanded here too: not every shell does it)."""
    out: list[Path] = []
    for item in items:
        p = Path(item)
        if p.is_dir():
            found = sorted(f for f in p.iterdir() if f.is_file() and f.suffix.lower() in IMAGE_SUFFIXES)
            if not found:
                subs = sorted(f.name for f in p.iterdir() if f.is_dir() and not f.name.startswith("."))
                hint = f"; its photos may be in a sub-folder: {', '.join(subs[:5])}" if subs else ""
                raise CommandError(f"folder {p} holds no photos ({', '.join(sorted(IMAGE_SUFFIXES))}){hint}")
            out += found
        elif p.is_file():
            out.append(p)
        elif _GLOB_CHARS & set(item):
            found = sorted(
                Path(f)
                for f in glob.glob(item)
                if Path(f).is_file() and Path(f).suffix.lower() in IMAGE_SUFFIXES
            )
            if not found:
                raise CommandError(f"no photos match {item}")
            out += found
        else:
            raise CommandError(
                f"{item}: no such file or folder; give the path of a {what}, a folder or a pattern"
            )
    return out


def out_folder(path: str, option: str = "--out", files: str = "") -> Path:
    """An --out that must be a folder; a name that looks like a file gets a clear error (saying
    `files`, the file outputs the command does accept, if any) instead of a folder called y.gif/."""
    p = Path(path)
    if p.suffix.lower() in FILE_SUFFIXES and not p.is_dir():
        raise CommandError(
            f"{option} {path} looks like a file name, but this writes a folder of files: give a folder "
            f"name{files}"
        )
    if p.exists() and not p.is_dir():
        raise CommandError(f"{option} {path} is a file; give a folder name")
    return p
