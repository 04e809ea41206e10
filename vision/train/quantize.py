"""The card map's weights in 8-bit integers, for onnxruntime.

Static quantization (onnxruntime's own, `onnxruntime.quantization.quantize_static`, rather than a
hand-written one): weights per output channel and activations in 8 bits, their ranges measured on
training data (renders of training seeds, and photos of the train split), never on validation or
test frames. The runtime reads the result as it reads float weights (`vision.cardmap`).
`python -m vision.train --export CHECKPOINT --int8`; measured on the shipped weights (1.4x as fast
a reading, the test photos' precision 85.9 -> 82.2 %) and not shipped: README, "Speed against the goal".
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import cv2
import numpy as np
import onnxruntime
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
from onnxruntime.quantization.shape_inference import quant_pre_process

from vision.cardmap import network_input
from vision.synthetic.randomised import BENCH_SIZE, training_sample
from vision.train.data import labelled_photos
from vision.train.splits import load as load_splits

# Frames whose activations set the ranges: renders (training seeds 0..) and train photos.
CALIBRATION_RENDERS = 16
CALIBRATION_PHOTOS = 16


def calibration_frames(photos: Path | None, renders: int = CALIBRATION_RENDERS, photo_count: int = CALIBRATION_PHOTOS) -> list[np.ndarray]:
    """BGR frames of the training data: renders of seeds 0..renders-1, and train-split photos
    found under `photos` (evenly spread over them, in name order); none of validation or test."""
    frames = [training_sample(seed, BENCH_SIZE).image for seed in range(renders)]
    if photos is not None and photo_count:
        train = labelled_photos(photos, set(load_splits()["train"]))
        step = max(1, len(train) // photo_count)
        for p in train[::step][:photo_count]:
            img = cv2.imread(str(p.image_path), cv2.IMREAD_COLOR)
            if img is not None:
                frames.append(img)
    return frames


class _Frames(CalibrationDataReader):
    """The frames as the runtime feeds them, one at a time."""

    def __init__(self, frames: list[np.ndarray], long_side: int, name: str) -> None:
        self._blobs = iter([cv2.dnn.blobFromImage(network_input(f, long_side)[0]) for f in frames])
        self._name = name

    def get_next(self) -> dict | None:
        blob = next(self._blobs, None)
        return None if blob is None else {self._name: blob}


def quantize(float_onnx: Path, out: Path, frames: list[np.ndarray], long_side: int) -> Path:
    """`float_onnx` with 8-bit weights and activations (QDQ), the activations' ranges from `frames`."""
    if not frames:
        raise ValueError("quantizing needs frames to measure the activations' ranges on")
    name = onnxruntime.InferenceSession(str(float_onnx), providers=["CPUExecutionProvider"]).get_inputs()[0].name
    reader = _Frames(frames, long_side, name)
    with tempfile.TemporaryDirectory() as tmp:
        # (shape inference and graph folding first, as onnxruntime advises before quantizing)
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(float_onnx), str(prepared))
        out.parent.mkdir(parents=True, exist_ok=True)
        quantize_static(
            str(prepared),
            str(out),
            reader,
            quant_format=QuantFormat.QDQ,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            per_channel=True,
        )
    return out
