"""`ring sim bench` (and `ring bench sim` once listed): simulation speed and rest-time figures as JSON."""
import json
import time
from collections import Counter

import numpy as np

from .geometry import RingGeometry
from .physics import simulate_toss
from ..cliutil import OneLineParser


def measure(seeds=20, start=0, ring=None):
    ring = ring or RingGeometry()
    rests, speed, outcomes, sim_s = [], [], Counter(), 0.0
    wall0 = time.perf_counter()
    for s in range(start, start + seeds):
        t = simulate_toss(s, ring=ring)
        outcomes[t.truth["outcome"]] += 1
        if t.truth["rest_t"] is not None:
            rests.append(t.truth["rest_t"])
        speed.append(t.speedup)
        sim_s += t.duration_s
    wall = time.perf_counter() - wall0
    r = np.array(rests) if rests else np.array([np.nan])
    return {
        "seeds": seeds, "ring_diameter_m": 2 * ring.layout_radius_m,
        "x_realtime_median": round(float(np.median(speed)), 1),
        "x_realtime_min": round(float(np.min(speed)), 1),
        "x_realtime_overall": round(sim_s / wall, 1),
        "rest_s_min": round(float(np.nanmin(r)), 2), "rest_s_p50": round(float(np.nanmedian(r)), 2),
        "rest_s_p90": round(float(np.nanpercentile(r, 90)), 2), "rest_s_max": round(float(np.nanmax(r)), 2),
        "no_rest": seeds - len(rests),
        "outcomes": dict(outcomes),
        "note": "one CPU core shared with other work; x_realtime = simulated s per wall s, "
                "including ground truth and contact bookkeeping",
    }


def main(argv=None):
    p = OneLineParser(prog="ring bench sim", description=__doc__)
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--start", type=int, default=0)
    p.add_argument("--ring-diameter", type=float, default=1.2, help="layout diameter, m")
    p.add_argument("--json", action="store_true", help="one JSON line (the default output anyway)")
    a = p.parse_args(argv)
    out = measure(a.seeds, a.start, RingGeometry(layout_radius_m=a.ring_diameter / 2))
    print(json.dumps(out))
    return 0
