"""vision.motion: a coin still rolling is moving; once nothing moves for the window, both coins are still."""
import json

import numpy as np

from ringctl.sim import render, scenes, vision_bench as bench
from ringctl.vision import motion


def test_motion_check_sees_rolling_then_still():
    spec = scenes.make(61, "valid", chips=0)
    rm = bench.site(spec, 61)
    mc = motion.MotionCheck(rm, window_s=0.3)
    for i in range(12):
        s = json.loads(json.dumps(spec))
        if i < 5:   # still rolling
            s["coins"][0]["center_px"][0] += 6 * (5 - i)
            s["coins"][0]["rotation_deg"] += 20 * i
        img, truth = render.render_scene(s, np.random.default_rng(i))
        st = mc.update(img, i / 10)
        if i == 4:
            assert not st["still"] and any(c["moving"] for c in st["coins"])
    assert st["still"] and len(st["coins"]) == 2 and st["still_s"] >= 0.3
