"""The card check's crops: each reported card upright at its own aspect, with its surroundings,
the map's reading of it and the frame's extent."""

import cv2
import numpy as np
import pytest

from vision.cardcheck import CARD_LONG, CROP, crops
from vision.cardmap import CardMapReading


def _frame_with_card(corners: np.ndarray) -> np.ndarray:
    img = np.full((480, 640, 3), 90, np.uint8)
    cv2.fillConvexPoly(img, np.round(corners).astype(np.int32), (20, 40, 230))
    return img


def _reading(img: np.ndarray, corners: np.ndarray) -> CardMapReading:
    """A map at half the frame's resolution calling exactly the card interior."""
    h, w = img.shape[:2]
    interior = np.zeros((h // 2, w // 2), np.float32)
    cv2.fillConvexPoly(interior, np.round((corners + 0.5) / 2 - 0.5).astype(np.int32), 1.0)
    return CardMapReading(interior, np.zeros_like(interior), scale=2.0)


def test_a_card_lying_across_stands_upright_in_its_crop_at_its_own_aspect():
    # 200 x 100 px, lying across the frame.
    q = np.array([[200, 150], [400, 150], [400, 250], [200, 250]], np.float64)
    img = _frame_with_card(q)
    x = crops(img, _reading(img, q), [q])
    assert x.shape == (1, 6, CROP, CROP)
    red = x[0, 2] > 160
    ys, xs = np.nonzero(red)
    assert abs((ys.max() - ys.min() + 1) - CARD_LONG) <= 2  # long side vertical
    assert abs((xs.max() - xs.min() + 1) - CARD_LONG / 2) <= 2
    # Centred, with the table around it.
    assert abs(ys.mean() - (CROP - 1) / 2) < 1.5 and abs(xs.mean() - (CROP - 1) / 2) < 1.5
    assert x[0, 2, 2, 2] == 90
    # The map's interior lies where the card does.
    assert (x[0, 3][red] > 128).mean() > 0.9
    assert (x[0, 3][~red] > 128).mean() < 0.05
    assert (x[0, 5] == 255).all()  # all of the crop lies in the frame


def test_the_crop_of_a_card_at_the_frames_edge_says_where_the_frame_ends():
    q = np.array([[0, 100], [90, 100], [90, 230], [0, 230]], np.float64)
    img = _frame_with_card(q)
    x = crops(img, _reading(img, q), [q])[0]
    left, right = x[5, :, : CROP // 2 - CARD_LONG // 3], x[5, :, -5:]
    assert (left == 0).mean() > 0.9
    assert (right == 255).all()


def test_a_large_card_is_sampled_from_a_reduced_frame_and_loses_no_part():
    img = np.full((1600, 1600, 3), 90, np.uint8)
    q = np.array([[100, 100], [1100, 100], [1100, 1500], [100, 1500]], np.float64)
    cv2.fillConvexPoly(img, q.astype(np.int32), (20, 40, 230))
    # Fine stripes inside: sampled without reduction they alias into a random pattern.
    img[100:1500:2, 100:1100] = (20, 40, 100)
    interior = np.zeros((800, 800), np.float32)
    x = crops(img, CardMapReading(interior, interior, scale=2.0), [q])[0]
    inner = x[2, (CROP - CARD_LONG) // 2 + 3 : (CROP + CARD_LONG) // 2 - 3, 28:36].astype(float)
    assert inner.std() < 12  # the stripes averaged, as a camera far enough away sees them
    assert abs(inner.mean() - 165) < 15


def test_no_quads_no_crops():
    img = np.zeros((100, 100, 3), np.uint8)
    r = CardMapReading(np.zeros((50, 50), np.float32), np.zeros((50, 50), np.float32), 2.0)
    assert crops(img, r, []).shape == (0, 6, CROP, CROP)


def test_a_report_is_learnt_as_a_card_only_on_its_edges_and_as_none_only_off_every_card():
    pytest.importorskip("torch")
    import shapely

    from vision.train.cardcheck import label

    card = np.array([[100, 100], [200, 100], [200, 240], [100, 240]], np.float64)
    assert label(card + 2, [card], []) == 1
    assert label(card + [0, 40], [card], []) == -1  # loose: neither
    assert label(card * 0.3, [card], []) == 0  # its print, or what lies beside it
    assert label(card + [400, 0], [card], []) == 0
    deck = shapely.Polygon(card + [400, 0]).buffer(5)
    assert label(card + [400, 0], [card], [deck]) == -1  # on what is not scored


def test_the_detector_keeps_only_the_cards_its_check_passes_and_the_runtime_reads_the_check_as_torch_does(tmp_path):
    torch = pytest.importorskip("torch")
    from vision.cardcheck import CardCheck
    from vision.map_detector import MapCardDetector
    from vision.synthetic.randomised import training_sample
    from vision.train.cardcheck import CardCheckNet, _tensor, export

    torch.manual_seed(0)
    frame = training_sample(30000001, (1280, 960))
    plain = MapCardDetector()
    found = plain.detect(frame.image)
    assert len(found) >= 3
    x = crops(frame.image, plain.last_map, [c.corners_px for c in found])
    checks = {}
    for name, bias in (("pass", 20.0), ("drop", -20.0)):
        net = CardCheckNet().eval()
        with torch.no_grad():
            net.head[-1].bias.fill_(bias)
        path = tmp_path / f"{name}.pt"
        torch.save({"model": net.state_dict(), "widths": [16, 32, 48, 64], "log": [{}], "data": [], "seed": 0, "epochs": 0}, path)
        checks[name] = CardCheck(export(path, tmp_path / f"{name}.onnx"))
        with torch.no_grad():
            want = torch.sigmoid(net(_tensor(x))[:, 0]).numpy()
        assert np.allclose(checks[name].scores(frame.image, plain.last_map, [c.corners_px for c in found]), want, atol=1e-4)
    kept = MapCardDetector(card_check=checks["pass"]).detect(frame.image)
    assert [c.corners_px.tolist() for c in kept] == [c.corners_px.tolist() for c in found]
    assert MapCardDetector(card_check=checks["drop"]).detect(frame.image) == []
