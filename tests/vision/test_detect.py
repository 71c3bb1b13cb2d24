"""vision.detect: the foreground objects of a frame, measured: both coins found where they are,
round and coin-sized when flat, and nothing found on the empty ring."""
import numpy as np

from ringctl.sim import render, scenes, vision_bench as bench
from ringctl.vision import detect


def test_both_coins_are_found_where_they_lie_and_measured_flat():
    spec = scenes.make(24, "valid", chips=0)
    rm = bench.site(spec, 24)
    img, truth = render.render_scene(spec, np.random.default_rng(24))
    blobs = detect.find_blobs(img, rm)
    for coin in truth["coins"]:
        # a circular ring: ring-plane px are image px; the outline fit is sub-pixel
        near = [b for b in blobs if np.hypot(*np.subtract(b.plane_center, coin["center"])) < 1.0]
        assert len(near) == 1, (coin, [b.plane_center for b in blobs])
        b = near[0]
        assert 0.8 < b.area_coins < 1.6 and b.fit_err < 0.5, b
        a, c = b.axes
        assert c / a > 0.97 and abs(a - coin["radius"]) < 0.05 * coin["radius"], b


def test_an_empty_ring_has_no_objects():
    spec = scenes.make(24, "valid", chips=0)
    rm = bench.site(spec, 24)
    img, _ = render.render_scene(scenes.empty(spec), np.random.default_rng(3))
    assert detect.find_blobs(img, rm) == []
