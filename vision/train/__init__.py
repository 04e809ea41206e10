"""Training the card map (`python -m vision.train`, needs the `[train]` extra: PyTorch, onnx).

`targets` and `data` use numpy and OpenCV only, so tests and benches use them without PyTorch.
"""
