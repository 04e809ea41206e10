"""Frame sources: a folder of photos with a bad file in it, and a video file, read for real."""

from __future__ import annotations

import logging

import cv2
import numpy as np
import pytest

from vision.sources import FolderSource, SourceError, VideoSource, open_source


def _photo(value: int) -> np.ndarray:
    img = np.full((120, 160, 3), value, np.uint8)
    cv2.rectangle(img, (40, 30), (100, 90), (255 - value, 128, value), -1)
    return img


def test_an_unreadable_photo_is_skipped_with_a_warning_and_the_rest_keep_their_times(tmp_path, caplog):
    cv2.imwrite(str(tmp_path / "a.png"), _photo(10))
    (tmp_path / "b.png").write_bytes(b"\x89PNG half a file")
    cv2.imwrite(str(tmp_path / "c.png"), _photo(200))
    source = open_source(str(tmp_path))
    assert isinstance(source, FolderSource)
    with caplog.at_level(logging.WARNING, logger="vision.sources"):
        frames = list(FolderSource(tmp_path, fps=2.0))
    assert [(i, t) for i, t, _ in frames] == [(0, 0.0), (2, 1.0)]
    assert np.array_equal(frames[1][2], _photo(200))
    assert "b.png" in caplog.text and "not a readable image" in caplog.text


def test_a_folder_of_nothing_readable_says_so(tmp_path):
    (tmp_path / "a.jpg").write_bytes(b"not a jpeg")
    with pytest.raises(SourceError, match="none of its 1 images can be read"):
        list(FolderSource(tmp_path))
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="holds no images"):
        FolderSource(tmp_path / "empty")
    with pytest.raises(SourceError, match="is not a folder of images"):
        FolderSource(tmp_path / "a.jpg")


def test_video_file_frames_in_order_and_a_missing_one_is_a_clear_error(tmp_path):
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (160, 120))
    assert writer.isOpened()
    for v in (20, 120, 220):
        writer.write(_photo(v))
    writer.release()
    frames = list(VideoSource(path))
    assert [i for i, _, _ in frames] == [0, 1, 2]
    means = [float(img.mean()) for _, _, img in frames]
    assert means[0] < means[1] < means[2]
    with pytest.raises(SourceError, match="not found"):
        VideoSource(tmp_path / "missing.mp4")
