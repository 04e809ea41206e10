"""Rebuild the local cache of real photos listed in data/real_photos/SOURCES.tsv.

    python -m vision.train.photos --mirrors /work/.mirror --out DIR            # write DIR/<image>
    python -m vision.train.photos --mirrors /work/.mirror --out DIR --check    # only verify DIR

The photos are not in the repository (files fetched from public repositories are not committed),
so each one is taken from a snapshot of its repository: `git cat-file blob COMMIT:PATH` in the bare
git dir under MIRRORS/<owner>+<name>/, decoded with OpenCV (IMREAD_COLOR applies the EXIF
orientation), shrunk with INTER_AREA so the long side is at most 1600 px and written as JPEG
quality 92. Photos the project keeps in its shared folder (shared/real_photos/<owner>_<name>/) are
taken from there instead: the cache and its labels were made from those copies.

A frame of a video or animated GIF is a row whose path ends in a fragment starting at `#frame=`:
`demo/clip.mp4#frame=120` is the 121st frame PyAV decodes from the file (counting from 0), and
`demo/show.gif#frame=45&crop=30,129,337,252` its x,y,width,height part (a camera picture inside a
screen recording). The frame is then shrunk and written like a photo.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.train.data import DATA

MANIFEST = DATA / "SOURCES.tsv"
# The shared folder sits beside the clone (/work/shared next to /work/main), not inside it.
SHARED = Path(__file__).resolve().parents[3] / "shared" / "real_photos"
LONG_SIDE = 1600
JPEG_QUALITY = 92
LICENCE_NAMES = ("LICENSE", "LICENSE.md", "LICENSE.txt", "LICENCE", "COPYING")


class PhotoError(Exception):
    """A photo that could not be produced; its message is the one line the user sees."""


@dataclass(frozen=True)
class Row:
    """One manifest row: where a cached photo comes from and the size it must have."""

    image: str  # <source_id>/<name>.jpg, relative to the cache folder
    repo: str  # owner/name, or "shared"
    commit: str
    path: str
    width: int
    height: int

    @property
    def source(self) -> str:
        return self.image.split("/", 1)[0]

    @property
    def file(self) -> str:
        """The path without a `#frame=...` fragment: the file in the repository (a `#` elsewhere
        in a file name, as in `Photo #2.jpg`, is part of the name)."""
        return self.path.split("#frame=", 1)[0]


@dataclass
class SourceTally:
    """What happened to one source's photos, for the per-source summary."""

    repo: str
    written: int = 0
    missing: int = 0
    notes: list[str] = field(default_factory=list)


def read_manifest(path: Path) -> list[Row]:
    """The manifest's rows; a malformed row is a PhotoError naming its line."""
    rows = []
    with path.open(newline="", encoding="utf-8") as f:
        for line, r in enumerate(csv.DictReader(f, delimiter="\t"), start=2):
            try:
                rows.append(
                    Row(r["image"], r["repo"], r["commit"], r["path"], int(r["width"]), int(r["height"]))
                )
            except (KeyError, TypeError, ValueError) as e:
                raise PhotoError(f"{path}:{line}: malformed manifest row ({e})") from None
    return rows


def _is_git_dir(d: Path) -> bool:
    return (d / "HEAD").is_file() and (d / "objects").is_dir()


def find_snapshot(mirrors: Path, repo: str) -> Path | None:
    """The git dir of `repo`'s snapshot under `mirrors`, or None.

    Snapshots are laid out as <owner>+<name>/ holding a bare repo (repo/, x.git/) or a clone's
    .git, depending on how they were fetched, so the git dir is searched a few levels down."""
    want = repo.replace("/", "+").lower()
    if not mirrors.is_dir():
        return None
    # GitHub names are case-insensitive; a snapshot dir may be spelled differently from the manifest.
    tops = sorted(d for d in mirrors.iterdir() if d.is_dir() and d.name.lower() == want)
    for top in tops:
        level = [top]
        for _ in range(4):
            for d in level:
                if _is_git_dir(d):
                    return d
            level = sorted(c for d in level for c in d.iterdir() if c.is_dir() and c.name != "objects")
    return None


def _git(git_dir: Path, *args: str) -> bytes | None:
    """stdout of a git command, or None when it fails (absent commit or path)."""
    try:
        p = subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, check=False)
    except FileNotFoundError:
        raise PhotoError("git is not installed") from None
    return p.stdout if p.returncode == 0 else None


def _has_commit(git_dir: Path, commit: str) -> bool:
    return _git(git_dir, "cat-file", "-e", f"{commit}^{{commit}}") is not None


def shared_copy(shared: Path, row: Row) -> Path | None:
    """The project's own copy of a row's photo, if the shared folder has it.

    Rows record the original repository (vimalloc/set-solver, tmikonen/magic_card_detector);
    the shared folder keeps them as <owner>_<name>/<file>. A row may also name the shared folder
    outright (repo "shared", or a path under shared/)."""
    p = row.path
    for prefix in ("shared/real_photos/", "shared/"):
        if p.startswith(prefix):
            p = p[len(prefix) :]
            break
    else:
        if row.repo != "shared":
            p = f"{row.repo.replace('/', '_')}/{Path(row.path).name}"
    f = shared / p
    return f if f.is_file() else None


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence libjpeg's warnings written straight to fd 2 ("Invalid SOS parameters ..."): they
    would break the one-line-per-problem output, and a real failure still shows as imdecode None."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def decode(data: bytes) -> np.ndarray | None:
    """BGR image with the EXIF orientation applied, or None if the bytes are not an image."""
    with _quiet_stderr():
        return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)


def decode_frame(data: bytes, fragment: str) -> np.ndarray:
    """One frame of a video/GIF file's bytes, as BGR: `frame=N` (the Nth frame PyAV decodes, from 0)
    and optionally `crop=x,y,w,h`. PhotoError when the file has no such frame."""
    import av  # only rows that name a frame need it

    try:
        params = dict(kv.split("=", 1) for kv in fragment.split("&"))
        index = int(params["frame"])
        crop = [int(v) for v in params["crop"].split(",")] if "crop" in params else None
    except (KeyError, ValueError):
        raise PhotoError(f"cannot read the fragment #{fragment} (want frame=N[&crop=x,y,w,h])") from None
    with tempfile.NamedTemporaryFile(suffix=".video") as f:
        f.write(data)
        f.flush()
        try:
            with av.open(f.name) as container:
                count = 0
                for count, frame in enumerate(container.decode(video=0), start=1):
                    if count - 1 == index:
                        img = frame.to_ndarray(format="bgr24")
                        break
                else:
                    raise PhotoError(f"no frame {index} (the file has {count})")
        except av.FFmpegError as e:
            raise PhotoError(f"cannot decode the video ({e})") from None
    if crop is not None:
        x, y, w, h = crop
        if x < 0 or y < 0 or x + w > img.shape[1] or y + h > img.shape[0]:
            raise PhotoError(f"crop {x},{y},{w},{h} outside the {img.shape[1]}x{img.shape[0]} frame")
        img = np.ascontiguousarray(img[y : y + h, x : x + w])
    return img


def shrink(img: np.ndarray, long_side: int = LONG_SIDE) -> np.ndarray:
    """`img` with its long side at most `long_side`; smaller images are left as they are."""
    h, w = img.shape[:2]
    s = long_side / max(h, w)
    if s >= 1:
        return img
    # An explicit dsize (not fx/fy): this is how the existing cache was made, byte for byte.
    return cv2.resize(img, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)


def encode(img: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise PhotoError("JPEG encoding failed")
    return buf.tobytes()


def _photo_bytes(row: Row, git_dir: Path | None, shared: Path, tally: SourceTally) -> bytes:
    """The original bytes of a row's photo: the shared copy, else the snapshot at the commit,
    else the snapshot's HEAD (noted in the tally)."""
    local = shared_copy(shared, row)
    if local is not None:
        return local.read_bytes()
    if row.repo == "shared" or row.path.startswith("shared/"):
        raise PhotoError(f"not in the shared folder {shared}")
    if git_dir is None:
        raise PhotoError(f"no snapshot of {row.repo}")
    if _has_commit(git_dir, row.commit):
        data = _git(git_dir, "cat-file", "blob", f"{row.commit}:{row.file}")
        if data is None:
            raise PhotoError(f"{row.file} not in {row.repo} at {row.commit[:10]}")
        return data
    # cat-file blob rather than show: a path that names a folder fails instead of listing it.
    data = _git(git_dir, "cat-file", "blob", f"HEAD:{row.file}")
    if data is None:
        raise PhotoError(f"commit {row.commit[:10]} not in the snapshot, and {row.file} not at its HEAD")
    note = f"commit {row.commit[:10]} not in the snapshot: used HEAD"
    if note not in tally.notes:
        tally.notes.append(note)
    return data


def _copy_licence(source: str, row: Row, git_dir: Path | None, shared: Path, out: Path) -> str:
    """Copy the source's licence file to out/<source>/LICENSE; say where it came from."""
    dest = out / source / "LICENSE"
    if git_dir is not None:
        for rev in (row.commit, "HEAD"):
            names = _git(git_dir, "ls-tree", "--name-only", rev)
            if names is None:
                continue
            present = {n.lower(): n for n in names.decode("utf-8", "replace").splitlines()}
            for want in LICENCE_NAMES:
                if want.lower() in present:
                    text = _git(git_dir, "cat-file", "blob", f"{rev}:{present[want.lower()]}")
                    if text is not None:
                        dest.parent.mkdir(parents=True, exist_ok=True)
                        dest.write_bytes(text)
                        return f"licence from {present[want.lower()]}"
            break  # the commit's tree was read: HEAD's would not be the licence the photos came under
    local = shared_copy(shared, Row(row.image, row.repo, row.commit, "LICENSE", 0, 0))
    if local is not None:
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(local, dest)
        return "licence from the shared folder"
    return "no licence file (the manifest's attribution says which licence applies)"


def rebuild(rows: list[Row], mirrors: Path, shared: Path, out: Path) -> bool:
    """Write every row's photo to out/<image> and each source's licence; print one line per
    problem and a summary per source. True when every photo was written at its manifest size."""
    tallies: dict[str, SourceTally] = {}
    snapshots: dict[str, Path | None] = {}
    ok = True
    for row in rows:
        tally = tallies.setdefault(row.source, SourceTally(row.repo))
        if row.repo not in snapshots:
            snapshots[row.repo] = None if row.repo == "shared" else find_snapshot(mirrors, row.repo)
        try:
            data = _photo_bytes(row, snapshots[row.repo], shared, tally)
            if "#frame=" in row.path:
                img = decode_frame(data, "frame=" + row.path.split("#frame=", 1)[1])
            else:
                img = decode(data)
            if img is None:
                raise PhotoError(f"cannot decode {row.path} ({len(data)} bytes) as an image")
            img = shrink(img)
            dest = out / row.image
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(encode(img))
        except (PhotoError, OSError) as e:
            tally.missing += 1
            ok = False
            # One line per photo only when the snapshot exists; a missing snapshot is said once below.
            if snapshots[row.repo] is not None or row.repo == "shared" or shared_copy(shared, row):
                print(f"  {row.image}: {e}")
            continue
        tally.written += 1
        h, w = img.shape[:2]
        if (w, h) != (row.width, row.height):
            ok = False
            print(f"  {row.image}: size {w}x{h}, manifest says {row.width}x{row.height}")
    for source, t in tallies.items():
        first = next(r for r in rows if r.source == source)
        git_dir = snapshots[t.repo]
        extra = list(t.notes)
        if t.written:
            extra.append(_copy_licence(source, first, git_dir, shared, out))
        if git_dir is None and t.missing and t.repo != "shared":
            extra.append(f"no snapshot of {t.repo} in {mirrors}: fetch github:{t.repo}")
        print(f"{source}: {t.written} written, {t.missing} missing" + "".join(f"; {x}" for x in extra))
    total = sum(t.written for t in tallies.values())
    print(f"{total} of {len(rows)} photos written to {out}")
    return ok


def _size(path: Path) -> tuple[int, int] | None:
    with _quiet_stderr():
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    return None if img is None else (img.shape[1], img.shape[0])


def check(rows: list[Row], out: Path) -> bool:
    """Verify out/ against the manifest without writing: each photo present, readable and of
    the manifest's size. True when all are."""
    ok = True
    counts: dict[str, list[int]] = {}
    for row in rows:
        c = counts.setdefault(row.source, [0, 0])
        f = out / row.image
        size = _size(f) if f.is_file() else None
        if size == (row.width, row.height):
            c[0] += 1
            continue
        c[1] += 1
        ok = False
        if not f.is_file():
            print(f"  {row.image}: missing")
        elif size is None:
            print(f"  {row.image}: not a readable image")
        else:
            print(f"  {row.image}: size {size[0]}x{size[1]}, manifest says {row.width}x{row.height}")
    for source, (good, bad) in counts.items():
        lic = "" if (out / source / "LICENSE").is_file() else "; no LICENSE"
        print(f"{source}: {good} ok, {bad} missing or wrong{lic}")
    listed = {r.image for r in rows}
    if out.is_dir():
        for f in sorted(out.glob("*/*.jpg")):
            if f.relative_to(out).as_posix() not in listed:
                print(f"  {f.relative_to(out).as_posix()}: not in the manifest")
    print(f"{sum(c[0] for c in counts.values())} of {len(rows)} photos ok in {out}")
    return ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train.photos", description=__doc__.splitlines()[0])
    ap.add_argument(
        "--mirrors", type=Path, default=Path("/work/.mirror"), help="folder of repository snapshots"
    )
    ap.add_argument("--out", type=Path, required=True, help="cache folder to write (or check)")
    ap.add_argument("--shared", type=Path, default=SHARED, help="the project's shared real_photos folder")
    ap.add_argument("--manifest", type=Path, default=MANIFEST, help="SOURCES.tsv to follow")
    ap.add_argument("--check", action="store_true", help="only verify --out against the manifest")
    args = ap.parse_args(argv)
    try:
        rows = read_manifest(args.manifest)
        if args.check:
            return 0 if check(rows, args.out) else 1
        if not args.mirrors.is_dir():
            print(f"note: {args.mirrors} is not a folder: only shared photos can be written")
        return 0 if rebuild(rows, args.mirrors, args.shared, args.out) else 1
    except (PhotoError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
