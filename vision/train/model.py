"""The card map network: a small U-Net that marks, per pixel of a reduced frame, card interior,
card boundary (the edges where one card ends: against the table, a neighbour, a card on top) and
card core (its middle, `vision.cardmap.CORE_SHARE`: cores of touching cards lie apart).

Small on purpose: it runs on one CPU core inside a 150 ms frame budget (cv2.dnn), and it only
has to say *where* cards are; the exact sides come from the sub-pixel edge fit afterwards.
The shipped weights give logits at half the input's resolution (`stride` 2): a card 1/40 of the
frame across is then 8 map px, and on diagnostic renders about half the cards that small were
lost after the map (merged with a neighbour, or outlined too coarsely). `stride` 1 gives the map
at the input's own resolution for the cost of one 3 x 3 convolution: the half-resolution
features predict each pixel's 2 x 2 sub-pixels (a pixel shuffle, ONNX DepthToSpace, which
cv2.dnn runs). After 4,000 steps from the step-19500 weights it still found fewer cards than they
do (README, "Vision v2"), so it is not shipped.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F

# Channels per level: /2, /4, /8, /16, /32 of the input.
WIDTHS = (12, 20, 32, 48, 64)
# What a network marks per map pixel. Weights from before the core (`vision.train.targets`) mark
# the first two.
OUTPUTS = ("interior", "boundary", "core")


def _block(c_in: int, c_out: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, 3, stride=stride, padding=1, bias=False),
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
        nn.Conv2d(c_out, c_out, 3, padding=1, bias=False),
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
    )


class CardMapNet(nn.Module):
    """BGR 0..255 (N x 3 x H x W, H and W multiples of 32) -> logits N x `outputs` x H/s x W/s,
    s the `stride` (2 or 1), the outputs the first of `OUTPUTS`."""

    backbone = "unet"

    def __init__(
        self, widths: tuple[int, ...] = WIDTHS, stride: int = 2, scene: bool = False, outputs: int = len(OUTPUTS)
    ) -> None:
        super().__init__()
        if stride not in (1, 2):
            raise ValueError(f"the map's stride is 1 or 2, not {stride}")
        self.widths = tuple(widths)
        self.stride = stride
        self.scene = scene
        self.outputs = outputs
        c = self.widths
        self.down = nn.ModuleList([_block(3, c[0], 2)] + [_block(c[i - 1], c[i], 2) for i in range(1, len(c))])
        # Context for "is this a card or a sheet of paper": a dilated block at the coarsest level.
        self.context = nn.Sequential(
            nn.Conv2d(c[-1], c[-1], 3, padding=2, dilation=2, bias=False),
            nn.BatchNorm2d(c[-1]),
            nn.ReLU(inplace=True),
        )
        if scene:
            # The whole frame in view at the coarsest level: a wider dilated block and the frame's
            # mean features (how large its cards are, what its table looks like), so a large
            # card's plain middle and a small card among papers are read with the frame around
            # them. Their last layers start at zero: the network starts as the one without them.
            self.far = nn.Sequential(
                nn.Conv2d(c[-1], c[-1], 3, padding=4, dilation=4, bias=False),
                nn.BatchNorm2d(c[-1]),
                nn.ReLU(inplace=True),
                nn.Conv2d(c[-1], c[-1], 1),
            )
            self.frame = nn.Sequential(nn.Conv2d(c[-1], c[-1], 1), nn.ReLU(inplace=True), nn.Conv2d(c[-1], c[-1], 1))
            for last in (self.far[-1], self.frame[-1]):
                nn.init.zeros_(last.weight)
                nn.init.zeros_(last.bias)
        self.up = nn.ModuleList([_block(c[i + 1] + c[i], c[i]) for i in reversed(range(len(c) - 1))])
        if stride == 2:
            self.head = nn.Conv2d(c[0], outputs, 1)
        else:
            self.head = nn.Sequential(nn.Conv2d(c[0], outputs * 4, 3, padding=1), nn.PixelShuffle(2))
        self.register_buffer("mean", torch.tensor([110.0, 115.0, 120.0]).view(1, 3, 1, 1))
        self.register_buffer("scale", torch.tensor(1 / 64.0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = (x - self.mean) * self.scale
        skips = []
        for d in self.down:
            x = d(x)
            skips.append(x)
        x = self.context(skips.pop()) + x
        if self.scene:
            x = x + self.far(x)
            # Expanded to the map's shape: cv2.dnn adds only tensors of one shape after a convolution.
            x = x + self.frame(x.mean(dim=(2, 3), keepdim=True)).expand_as(x)
        for u in self.up:
            s = skips.pop()
            x = F.interpolate(x, size=s.shape[-2:], mode="bilinear", align_corners=False)
            x = u(torch.cat([x, s], dim=1))
        return self.head(x)


# The other network: the text detector of PP-OCRv4 (PaddleOCR's mobile DB detector, Apache-2.0,
# as the rapidocr-onnxruntime wheel carries it), its layers up to the half-resolution features
# of its head, and a new 1 x 1 head for the card map's outputs. Its weights were learnt on many
# thousands of real photos of scenes with text; the U-Net above starts from nothing and has seen
# only renders and a few hundred real photos, and the gap between renders and real photos is
# where it fails. PaddleOCR's detector reads BGR (as OpenCV loads it) normalised by ImageNet's
# mean and deviation, in that channel order.
TEXT_DETECTOR = "pp-ocrv4-det"
TEXT_DETECTOR_FILE = ("rapidocr_onnxruntime", "models/ch_PP-OCRv4_det_infer.onnx")
TEXT_DETECTOR_MEAN = (0.485, 0.456, 0.406)
TEXT_DETECTOR_STD = (0.229, 0.224, 0.225)


def text_detector_path() -> Path:
    """The PP-OCRv4 detector's ONNX file inside the installed rapidocr-onnxruntime package."""
    package, name = TEXT_DETECTOR_FILE
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"the {TEXT_DETECTOR} network needs {package}: pip install '.[train]'")
    return Path(next(iter(spec.submodule_search_locations))) / name


def _text_detector_body(path: Path) -> tuple[nn.Module, int]:
    """The detector's layers from its input to the last ReLU (its head's half-resolution
    features), as a torch module (onnx2torch) whose weights train, and its channels out."""
    import onnx
    from onnx2torch import convert

    m = onnx.load(path)
    g = m.graph
    # Paddle's export keeps the weights in Constant nodes; onnx2torch takes them as initializers.
    nodes = []
    for n in g.node:
        if n.op_type == "Constant":
            t = onnx.helper.get_attribute_value(n.attribute[0])
            t.name = n.output[0]
            g.initializer.append(t)
        else:
            nodes.append(n)
    del g.node[:]
    g.node.extend(nodes)
    last = [n for n in g.node if n.op_type == "Relu"][-1].output[0]
    body = onnx.utils.Extractor(onnx.shape_inference.infer_shapes(m)).extract_model([g.input[0].name], [last])
    return convert(body), body.graph.output[0].type.tensor_type.shape.dim[1].dim_value


class TextDetectorMapNet(nn.Module):
    """`CardMapNet`'s contract (BGR 0..255 in, logits of `OUTPUTS` at half resolution out) on the
    PP-OCRv4 text detector's layers (`TEXT_DETECTOR`)."""

    backbone = TEXT_DETECTOR
    widths: tuple[int, ...] = ()
    stride = 2
    scene = False

    def __init__(self, outputs: int = len(OUTPUTS)) -> None:
        super().__init__()
        self.outputs = outputs
        self.body, channels = _text_detector_body(text_detector_path())
        self.head = nn.Conv2d(channels, outputs, 1)
        self.register_buffer("mean", torch.tensor(TEXT_DETECTOR_MEAN).view(1, 3, 1, 1) * 255)
        self.register_buffer("scale", 1 / (torch.tensor(TEXT_DETECTOR_STD).view(1, 3, 1, 1) * 255))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body((x - self.mean) * self.scale))


def network(
    backbone: str = "unet",
    widths: tuple[int, ...] = WIDTHS,
    stride: int = 2,
    scene: bool = False,
    outputs: int = len(OUTPUTS),
) -> nn.Module:
    """A new card map network: the U-Net (`CardMapNet`) or the text detector's (`TEXT_DETECTOR`)."""
    if backbone == TEXT_DETECTOR:
        if stride != 2 or scene:
            raise ValueError(f"the {TEXT_DETECTOR} network has stride 2 and no scene block")
        return TextDetectorMapNet(outputs)
    if backbone != "unet":
        raise ValueError(f"no network {backbone!r}: unet or {TEXT_DETECTOR}")
    return CardMapNet(widths, stride, scene, outputs)
