"""The overview can show the table's calibration error map (issue 25.5), by its pixels."""

from __future__ import annotations

import numpy as np

from calibration.errormap import ErrorMap
from display.overview import render_overview, table_fit
from tests.display_helpers import masterplan_state


def test_the_overview_tints_the_table_by_its_calibration_error():
    state, events = masterplan_state()
    size = (1280, 720)
    fit, (x, y, w, h) = table_fit(state, size)
    # The table mm the felt rectangle shows (the overview's own mapping, inverted).
    x0 = fit.x0_mm + (x - fit.left_px) / fit.scale
    x1 = fit.x0_mm + (x + w - fit.left_px) / fit.scale
    y1 = fit.y1_mm - (y - fit.top_px) / fit.scale
    y0 = fit.y1_mm - (y + h - fit.top_px) / fit.scale
    # A made-up map over the whole table: 0.1 mm on its left half, 2 mm on its right half.
    xs = np.arange(x0 - 40, x1 + 40, 20.0)
    ys = np.arange(y0 - 40, y1 + 40, 20.0)
    values = np.where(xs[None, :] < (x0 + x1) / 2, 0.1, 2.0) * np.ones((len(ys), 1))
    em = ErrorMap((float(xs[0]), float(ys[0])), 20.0, values)
    plain = render_overview("masterplan", state, events, size)
    tinted = render_overview("masterplan", state, events, size, error_map=em)
    assert np.array_equal(plain, render_overview("masterplan", state, events, size, error_map=None))
    # The felt's bottom strip (no cards there): blue-ish on the left, red-ish on the right.
    strip = tinted[y + h - 40 : y + h - 25].astype(int)
    left, right = strip[:, x + 20 : x + w // 2 - 20], strip[:, x + w // 2 + 20 : x + w - 200]
    assert left[..., 0].mean() > left[..., 2].mean() + 20  # blue over red
    assert right[..., 2].mean() > right[..., 0].mean() + 20  # red over blue
    # The panel beside the table is left alone.
    assert np.array_equal(plain[:, x + w + 20 :], tinted[:, x + w + 20 :])
