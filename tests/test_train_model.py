"""The card map network's options, where the training extra (torch) is installed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="pip install '.[train]'")

from vision.cardmap import CardMap, Weights  # noqa: E402
from vision.train.__main__ import (  # noqa: E402
    _head_with_core,
    _network,
    averaged,
    averaged_weights,
    export,
    map_loss,
    render_pool,
    shared_boundary,
    slim,
    to_onnx,
)
from vision.train.model import CardMapNet  # noqa: E402
from vision.train.targets import targets_from_instances  # noqa: E402


def test_a_network_that_sees_the_whole_frame_starts_as_the_one_without_it():
    """`--init` a scene network from plain weights: the new layers add nothing until trained."""
    torch.manual_seed(1)
    plain = CardMapNet(stride=2).eval()
    scene = CardMapNet(stride=2, scene=True).eval()
    missing, unexpected = scene.load_state_dict(plain.state_dict(), strict=False)
    assert not unexpected and missing and all(k.startswith(("far.", "frame.")) for k in missing)
    x = torch.rand(2, 3, 96, 128) * 255
    with torch.no_grad():
        assert torch.equal(scene(x), plain(x))


def _reads_alike_in_the_runtime(net, onnx_path) -> None:
    """`net` exported as `export` exports it reads frames of two shapes in onnxruntime
    (`vision.cardmap.Weights`) as torch does, with half-resolution logits."""
    runtime = Weights(to_onnx(net, onnx_path), "no weights")
    for shape in ((96, 128), (160, 64)):
        x = torch.rand(2, 3, *shape) * 255
        with torch.no_grad():
            want = net(x).numpy()
        got = runtime.run(x.numpy())
        assert got.shape == want.shape == (2, 3, shape[0] // 2, shape[1] // 2)
        np.testing.assert_allclose(got, want, atol=1e-3)


def test_a_scene_network_reads_alike_in_the_runtime_at_any_frame_size(tmp_path):
    """The shipped weights run in onnxruntime (`vision.cardmap.Weights`): the frame's mean
    features must export (as `export` exports) and be added there as torch adds them, whatever
    the frame's shape."""
    torch.manual_seed(2)
    net = CardMapNet(stride=2, scene=True).eval()
    for p in [*net.far.parameters(), *net.frame.parameters()]:
        p.data.normal_(0, 0.1)  # trained-looking: not the zeros it starts from
    _reads_alike_in_the_runtime(net, tmp_path / "scene.onnx")


def test_the_boundary_where_two_cards_meet_is_told_from_their_edges_against_the_table():
    """`--shared-weight`: two cards side by side, touching, and one apart. Only the line where
    the two touch is shared boundary, and weighing it raises the loss of a map that misses it."""
    inst = np.zeros((120, 160), np.int32)
    inst[20:60, 20:50] = 1
    inst[20:60, 50:80] = 2  # touches card 1 along x = 50
    inst[70:110, 100:130] = 3
    t = targets_from_instances(inst, np.zeros(inst.shape, bool), stride=1)
    y = torch.from_numpy(np.stack([t.interior, t.boundary, t.weight, t.core]))[None]
    shared = shared_boundary(y)[0].numpy() > 0
    rows, cols = np.nonzero(shared)
    assert set(cols) == {49, 50} and rows.min() >= 21 and rows.max() <= 58
    assert shared.sum() < 0.2 * t.boundary.sum()
    # A map that draws every boundary but the shared line: weighing that line costs it more.
    logits = torch.from_numpy(np.stack([t.interior, t.boundary * ~shared]) * 8 - 4)[None].float()
    assert map_loss(logits, y, shared_weight=8.0) > map_loss(logits, y) * 1.5


def test_weights_without_the_core_start_a_network_that_marks_it_where_they_were(tmp_path):
    """`--init` from weights of two outputs: interior and boundary as they were, the core starting
    as their interior; the runtime's reading then carries the core."""
    torch.manual_seed(3)
    old = CardMapNet(stride=2, scene=True, outputs=2).eval()
    init = {"model": old.state_dict(), "stride": 2}
    new = CardMapNet(stride=2, scene=True).eval()
    own = new.state_dict()
    taken = {k: v for k, v in init["model"].items() if own[k].shape == v.shape} | _head_with_core(init, own)
    assert set(taken) == set(own)
    new.load_state_dict(taken)
    x = torch.rand(1, 3, 96, 128) * 255
    with torch.no_grad():
        a, b = old(x), new(x)
    assert torch.equal(b[:, :2], a) and torch.equal(b[:, 2], a[:, 0])
    reading = CardMap(to_onnx(new, tmp_path / "core.onnx")).read(np.zeros((96, 128, 3), np.uint8))
    assert reading.core is not None and reading.core.shape == reading.interior.shape
    np.testing.assert_allclose(reading.core, reading.interior, atol=1e-4)
    reading = CardMap(to_onnx(old, tmp_path / "plain.onnx")).read(np.zeros((96, 128, 3), np.uint8))
    assert reading.core is None


def test_the_exported_weights_are_the_moving_average_of_the_trained_ones(tmp_path):
    """A checkpoint keeps the moving average of its weights (batch-norm statistics too); export
    writes it, and checkpoints from before it export their trained weights."""
    torch.manual_seed(4)
    net = CardMapNet(widths=(4, 6, 8, 8, 8), stride=2, scene=True)
    ema = averaged(net)
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    x = torch.rand(2, 3, 64, 64) * 255
    for _ in range(3):
        opt.zero_grad()
        net(x).square().mean().backward()
        opt.step()
        ema.update_parameters(net)
    state = {"model": net.state_dict(), "ema": ema.state_dict(), "widths": net.widths, "scene": True}
    state |= {"stride": 2, "outputs": 3, "step": 3, "log": [], "args": {"renders": 1, "project_renders": 0}}
    weights = averaged_weights(state)
    assert set(weights) == set(net.state_dict())
    # Mostly the weights it started from (decay 0.999), not the trained ones, in parameters and
    # running statistics alike.
    for k in ("down.0.0.weight", "down.0.1.running_mean"):
        assert not torch.allclose(weights[k], net.state_dict()[k])
    torch.save(state, tmp_path / "ck.pt")
    got = Weights(export(tmp_path / "ck.pt", tmp_path / "ema.onnx"), "no weights").run(x.numpy())
    twin = CardMapNet(widths=(4, 6, 8, 8, 8), stride=2, scene=True).eval()
    twin.load_state_dict(weights)
    with torch.no_grad():
        np.testing.assert_allclose(got, twin(x).numpy(), atol=1e-3)
        assert not np.allclose(got, net.eval()(x).numpy(), atol=1e-3)
    # The slim checkpoint committed between sessions carries the averaged weights as its own.
    thin = torch.load(slim(tmp_path / "ck.pt"), map_location="cpu", weights_only=False)
    assert "ema" not in thin and set(thin["model"]) == set(weights)
    card = json.loads(export(tmp_path / "ck.slim.pt", tmp_path / "slim.onnx").with_suffix(".json").read_text())
    assert card["weights"].startswith("the moving average")
    assert json.loads((tmp_path / "ema.json").read_text())["weights"] == card["weights"]
    for k, v in weights.items():
        if v.is_floating_point():
            assert thin["model"][k].dtype == torch.float16
            torch.testing.assert_close(thin["model"][k].float(), v, rtol=1e-3, atol=1e-4)
        else:
            assert torch.equal(thin["model"][k], v)
    # A run from the slim weights loads them back in float32.
    again = CardMapNet(widths=(4, 6, 8, 8, 8), stride=2, scene=True)
    again.load_state_dict(thin["model"])
    assert all(v.dtype == torch.float32 for v in again.state_dict().values() if v.is_floating_point())
    before = {"model": net.state_dict()}
    assert averaged_weights(before) is before["model"]


def test_weights_exported_in_8_bits_map_a_frame_they_never_saw_as_in_float32(tmp_path):
    """`export --int8` (`vision.train.quantize`): the shipped checkpoint in 8 bits reads a
    render it was not calibrated on to the same map as in float32, to within what a card's
    outline notices, and its model card says which weights these are."""
    from vision.synthetic.randomised import training_sample
    from vision.train.quantize import calibration_frames, quantize

    checkpoint = Path(__file__).resolve().parents[1] / "vision" / "models" / "cardmap.checkpoint.pt"
    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    net = _network(state)
    net.load_state_dict(averaged_weights(state))
    plain = to_onnx(net, tmp_path / "float32.onnx")
    eight = quantize(plain, tmp_path / "int8.onnx", calibration_frames(None, renders=4), 640)
    assert eight.stat().st_size < 0.5 * plain.stat().st_size
    frame = training_sample(62_000_001, (1280, 960)).image  # a diagnostic seed, no training one
    a, b = CardMap(plain).read(frame), CardMap(eight).read(frame)
    for name in ("interior", "boundary", "core"):
        pa, pb = getattr(a, name), getattr(b, name)
        assert np.abs(pa - pb).mean() < 0.01, name
        assert ((pa > 0.5) == (pb > 0.5)).mean() > 0.99, name
    assert (a.interior > 0.5).mean() > 0.05  # a frame with cards in it: the agreement means something
    card = json.loads(export(checkpoint, tmp_path / "out.onnx", photos=None, int8=True).with_suffix(".json").read_text())
    assert card["version"].endswith("-int8") and "8 bits" in card["weights"]


def test_a_pool_cache_is_reused_only_while_it_holds_the_renderers_frames(tmp_path):
    cache = tmp_path / "pool.npz"
    drawn = render_pool([1, 2], workers=1, cache=cache)
    with np.load(cache) as z:
        arrays = dict(z)
    marked = drawn[1][0].copy()
    marked[:8, :8] = 7  # a frame only the cache holds: read back, the cache was used
    np.savez(cache, **(arrays | {"image1": marked}))
    assert np.array_equal(render_pool([1, 2], workers=1, cache=cache)[1][0], marked)
    # A cache whose first frame or its targets are not what is drawn now (drawn before a change).
    for stale in ({"image0": np.zeros_like(drawn[0][0])}, {"maps0": np.zeros_like(drawn[0][1])}):
        np.savez(cache, **(arrays | stale | {"image1": marked}))
        again = render_pool([1, 2], workers=1, cache=cache)
        assert np.array_equal(again[0][0], drawn[0][0]) and np.array_equal(again[1][0], drawn[1][0])
        assert np.array_equal(again[0][1], drawn[0][1])


def test_the_text_detector_network_starts_from_the_detector_and_runs_in_the_runtime(tmp_path):
    """`--backbone pp-ocrv4-det`: its layers are PP-OCRv4's text detector's own (the detector's
    ONNX, run as the wheel ships it, gives the same features where the new head takes them), and
    it exports for the runtime at any frame size, with half-resolution logits as the U-Net's."""
    onnx = pytest.importorskip("onnx")
    onnxruntime = pytest.importorskip("onnxruntime")
    from vision.train.model import TEXT_DETECTOR_MEAN, TEXT_DETECTOR_STD, network, text_detector_path

    net = network("pp-ocrv4-det").eval()
    detector = onnx.load(text_detector_path())
    last_relu = [n for n in detector.graph.node if n.op_type == "Relu"][-1].output[0]
    detector.graph.output.append(onnx.helper.make_tensor_value_info(last_relu, onnx.TensorProto.FLOAT, None))
    session = onnxruntime.InferenceSession(detector.SerializeToString(), providers=["CPUExecutionProvider"])
    x = torch.rand(1, 3, 96, 128) * 255
    # The detector's own input: BGR scaled to 0..1 and normalised by ImageNet's figures.
    mean = torch.tensor(TEXT_DETECTOR_MEAN).view(1, 3, 1, 1)
    std = torch.tensor(TEXT_DETECTOR_STD).view(1, 3, 1, 1)
    want = session.run([last_relu], {session.get_inputs()[0].name: ((x / 255 - mean) / std).numpy()})[0]
    with torch.no_grad():
        got = net.body((x - net.mean) * net.scale).numpy()
    assert got.shape == want.shape == (1, net.head.in_channels, 48, 64)
    np.testing.assert_allclose(got, want, atol=1e-3)

    _reads_alike_in_the_runtime(net, tmp_path / "text.onnx")
