"""Benchmarks: `python -m bench.NAME` (or `tabletop bench NAME`). Each prints its figures next to
a baseline measured in the same run, as ratios, because absolute times drift on a shared machine."""
