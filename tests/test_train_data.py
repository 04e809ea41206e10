"""The training data's plumbing at either map stride: targets packed into one byte a pixel come
back whole, and a cropped window keeps its image and targets on the same pixels. No torch needed:
these run where the product is installed without `[train]`."""

from __future__ import annotations

import numpy as np
import pytest

from vision.train.data import Example, crop, pack, unpack
from vision.train.targets import instances_from_quads, map_size, targets_from_instances

CARD = np.array([[130, 90], [230, 90], [230, 230], [130, 230]], float)  # frame px, 640 x 480


def _example(stride: int) -> Example:
    inst, ignore = instances_from_quads((480, 640), [CARD], [np.array([[500, 400], [600, 400], [600, 470]], float)])
    image = np.zeros((480, 640, 3), np.uint8)
    image[inst > 0] = 255  # the card is the white of the frame
    return Example(image, targets_from_instances(inst, ignore, stride))


@pytest.mark.parametrize("stride", [1, 2])
def test_targets_are_at_the_maps_size(stride):
    t = _example(stride).targets
    assert t.interior.shape == map_size((480, 640), stride) == (480 // stride, 640 // stride)
    # The card's middle is interior, its edge boundary, the ignored triangle unscored.
    assert t.interior[160 // stride, 180 // stride] == 1 and t.boundary[160 // stride, 180 // stride] == 0
    assert t.boundary[160 // stride, 130 // stride] == 1
    assert t.weight[450 // stride, 580 // stride] == 0 and t.weight[20, 20] == 1


@pytest.mark.parametrize("stride", [1, 2])
def test_packed_targets_come_back_whole(stride):
    ex = _example(stride)
    image, bits = pack(ex)
    assert bits.dtype == np.uint8 and bits.shape == ex.targets.interior.shape
    back = unpack(image, bits)
    for a, b in zip((back.targets.interior, back.targets.boundary, back.targets.weight),
                    (ex.targets.interior, ex.targets.boundary, ex.targets.weight)):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("stride", [1, 2])
def test_a_cropped_window_keeps_image_and_targets_together(stride):
    ex = _example(stride)
    for seed in range(20):
        c = crop(ex, 0.75, np.random.default_rng(seed))
        h, w = c.image.shape[:2]
        assert h % 32 == 0 and w % 32 == 0
        assert c.targets.interior.shape == (h // stride, w // stride)
        # Every map pixel called interior and off the boundary covers white (card) image pixels.
        core = (c.targets.interior > 0) & (c.targets.boundary == 0)
        ys, xs = np.nonzero(core)
        assert len(ys) > 0
        assert (c.image[ys * stride, xs * stride] == 255).all()
