"""`ring sim rest-bench`: the result's delay after the coins' true rest, over simulated tosses.

Each toss is played frame by frame (not in real time) through every camera of a rig, as the
host sees it: the stillness rule (vision/rest.py) per camera on every frame, every still
moment judged by the multi-view judge, the board's impact quiet (the last piezo level the
board counts as loud + quiet_ms), then the call once `stills` judged moments agree. The
announcement time is the confirming frame's time plus the CPU time spent on that frame, so
the figure includes adjudication; it is compared with the physics' true rest (sim/physics.py:
both coins slow and unmoved for 0.25 s, from the first instant of that; a coin lying flat is
unmoved while it neither moves in plan nor tilts past 2 deg: physics.JITTER_TILT_DEG).

    ring sim rest-bench --ring-mm 3000 --cameras 2 --tosses 20 --json
"""
import json
import time

import numpy as np

from ..cliutil import OneLineParser
from .camera import CameraSource
from .cameras import camera_rig, commission
from .geometry import CoinSpec, RingGeometry

QUIET_S = 0.2            # the board's quiet_ms for a fast result (firmware minimum: 200 ms)


class Site:
    """A simulated installation: the rig's cameras, calibrated and trained as a technician does."""

    def __init__(self, ring_mm=1200.0, cameras=1, coin_px=44.0, seed=0):
        self.ring = RingGeometry(layout_radius_m=ring_mm / 2000.0)
        self.coin = CoinSpec()
        self.cams = camera_rig(self.ring, cameras, coin_px)
        self.rig, self.model = commission(self.cams, self.ring, self.coin, np.random.default_rng([seed, 77]))


def last_felt_impact(toss):
    """Time (s after release) of the last piezo level the board counts as loud."""
    from ..fw import pins
    from .sensors import DEFAULT_FLOOR
    level = DEFAULT_FLOOR + pins.DEFAULTS["rest_threshold"]
    times = [t for (t, kind, ch, value) in toss.sensor_timeline if kind == "impact" and value > level]
    return max(times) if times else 0.0


def follow(toss, site, fps=25.0, quiet_s=QUIET_S, stills=3, phase=0.0, board_rest_t=None,
           seed=0, max_after_s=3.0):
    """Play one toss through the site's cameras; -> {announce_t, rest_t, after_rest_ms, result,
    reasons, frames, before_rest}. `board_rest_t` overrides the board's at-rest time."""
    from ..vision.rest import StillnessWatch, window_for
    from ..vision.views import judge_views
    views = site.rig.views
    start = max(0.0, (toss.truth.get("first_impact_t") or 0.5) - 0.2) + phase / fps
    srcs = [CameraSource(toss, cam=c, fps=fps, realtime=False, start_s=start, seed=[seed, k],
                         still_s=max_after_s) for k, c in enumerate(site.cams)]
    watches = [StillnessWatch(v.ring) for v in views]
    board_rest = board_rest_t if board_rest_t is not None else last_felt_impact(toss) + quiet_s
    judged, verdict, n, opened, seen = [], None, 0, None, None
    rest_t = toss.truth.get("rest_t")
    while True:
        got = [s.read() for s in srcs]
        if any(f is None for f, _ in got):
            return {"announce_t": None, "rest_t": rest_t, "after_rest_ms": None, "result": None,
                    "reasons": ["no call before the frames ended"], "frames": n, "before_rest": False}
        t = got[0][1]
        n += 1
        c0 = time.thread_time()
        states = [w.update(f, t) for w, (f, _) in zip(watches, got)]
        if any(s["moving"] for s in states):
            judged, opened = [], (t, [f for f, _ in got])
            seen = (t, [(k, w.motion) for k, (w, s) in enumerate(zip(watches, states)) if s["moving"]])
            continue
        still_s = min(s["still_s"] for s in states)
        if opened is not None and not judged and abs((t - still_s) - opened[0]) < 1e-6:
            # as the host's RigWatcher: the frame that opened the still period is one of it
            judged.append(judge_views(opened[1], site.rig, site.model))
        opened = None
        # as the host's RigWatcher: `stills` moments of a still period are judged, no more
        # (the frames have not changed since)
        if len(judged) < stills:
            judged.append(judge_views([f for f, _ in got], site.rig, site.model))
        verdict = judged[-1]
        cpu = time.thread_time() - c0
        if still_s >= window_for(verdict) and len(judged) >= stills and t + cpu >= board_rest:
            calls = {v["result"] for v in judged[-stills:]}
            result = calls.pop() if len(calls) == 1 else "unsure"
            announce = max(t + cpu, board_rest)
            return {"announce_t": round(announce, 4), "rest_t": rest_t,
                    "after_rest_ms": None if rest_t is None else round(1000 * (announce - rest_t), 1),
                    "result": result, "reasons": verdict["reasons"], "frames": n,
                    "before_rest": rest_t is None or announce < rest_t, "cpu_ms": round(cpu * 1000, 1),
                    "last_motion": None if seen is None or rest_t is None else
                    last_motion(toss, site, seen, rest_t, fps)}


def last_motion(toss, site, seen, rest_t, fps):
    """Why the still period began where it did: the last frame the rule saw move (ms after the
    true rest), each camera's check that saw it (StillnessWatch.motion) and the coin it was on
    (the nearest, in coin radii from its centre), and what the physics did between that frame
    and the one before: each coin's largest point displacement (mm: centre shift + radius x
    rotation), its plan-view share (what a camera looking down sees), and since the true rest."""
    from .camera import scene_spec
    t, moved = seen
    out = {"frame_ms": round(1000 * (t - rest_t), 1), "seen": []}
    for k, m in moved:
        m = dict(m or {})
        box = m.get("box")
        if box:
            coins = scene_spec(site.cams[k], *toss.pose_at(t), toss.coin)["coins"]
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            d = [np.hypot(cx - c["center_px"][0], cy - c["center_px"][1]) / c["radius_px"] for c in coins]
            m.update(coin=int(np.argmin(d)), coin_radii=round(float(min(d)), 2))
        out["seen"].append(dict(m, camera=k))
    out["moved_mm"] = _moved(toss, t - 1 / fps, t)
    out["since_rest_mm"] = _moved(toss, rest_t, t)
    return out


def _moved(toss, ta, tb):
    """Per coin: [largest point displacement, its plan-view part] between toss times ta and tb, mm."""
    from .geometry import quat_to_matrix
    (pa, qa), (pb, qb) = toss.pose_at(ta), toss.pose_at(tb)
    a = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    r = toss.coin.radius_m
    rim = np.stack([r * np.cos(a), r * np.sin(a), np.zeros_like(a)], 1)
    out = []
    for i in range(2):
        d = (pb[i] + rim @ quat_to_matrix(qb[i]).T) - (pa[i] + rim @ quat_to_matrix(qa[i]).T)
        out.append([round(1000 * float(np.linalg.norm(d, axis=1).max()), 3),
                    round(1000 * float(np.linalg.norm(d[:, :2], axis=1).max()), 3)])
    return out


def main(argv=None):
    p = OneLineParser(prog="ring sim rest-bench", description=__doc__.split("\n")[0])
    p.add_argument("--ring-mm", type=float, default=1200.0, help="ring inner diameter (default 1200)")
    p.add_argument("--cameras", type=int, default=1, choices=(1, 2, 4))
    p.add_argument("--coin-px", type=float, default=44.0)
    p.add_argument("--fps", type=float, default=25.0)
    p.add_argument("--tosses", type=int, default=20)
    p.add_argument("--seed", type=int, default=500)
    p.add_argument("--phases", type=int, default=1,
                   help="frame phases per toss: 1 (default) a random one; N: N evenly spaced "
                        "(the rule's worst case is at some phase: no call before the rest at any)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--trace", action="store_true",
                   help="per toss, one line on why its still period began where it did (the rule's "
                        "last motion, the check that saw it, the physics then)")
    args = p.parse_args(argv)
    import cv2
    from .physics import simulate_toss
    cv2.setNumThreads(1)
    site = Site(args.ring_mm, args.cameras, args.coin_px)
    rows = []
    rng = np.random.default_rng(args.seed)
    for k in range(args.tosses):
        toss = simulate_toss(args.seed + k, ring=site.ring)
        if toss.truth.get("rest_t") is None:
            continue
        phases = [float(rng.uniform(0, 1))] if args.phases <= 1 else \
            [j / args.phases for j in range(args.phases)]
        for phase in phases:
            r = follow(toss, site, fps=args.fps, phase=phase, seed=k)
            r.update(seed=args.seed + k, truth=toss.truth["outcome_at_rest"], phase=round(phase, 3))
            rows.append(r)
            if args.trace:
                m = r["last_motion"] or {}
                print("seed %d (phase %.2f): after rest %s ms; last motion seen %s ms after the rest "
                      "by %s; coins moved (mm, largest point / plan view) since the frame before %s, "
                      "since the rest %s"
                      % (r["seed"], r["phase"], r["after_rest_ms"], m.get("frame_ms"),
                         ", ".join("camera %d %s check (%d px, coin %s at %s radii)" % (
                             x["camera"], x.get("check"), x.get("px", 0), x.get("coin"),
                             x.get("coin_radii")) for x in m.get("seen", [])),
                         m.get("moved_mm"), m.get("since_rest_mm")), flush=True)
            elif not args.json:
                print(json.dumps(r), flush=True)
    lat = [r["after_rest_ms"] for r in rows if r["after_rest_ms"] is not None]
    wrong = sum(r["result"] not in (r["truth"], "unsure", None) for r in rows)
    out = {"ring_mm": args.ring_mm, "cameras": args.cameras, "fps": args.fps, "quiet_ms": QUIET_S * 1000,
           "tosses": len({r["seed"] for r in rows}), "runs": len(rows), "phases": max(1, args.phases),
           "result_after_rest_ms_min": min(lat) if lat else None,
           "coin_px_min": site.rig.report["coverage"]["coin_px_min"],
           "result_after_rest_ms_p50": round(float(np.percentile(lat, 50)), 1) if lat else None,
           "result_after_rest_ms_p99": round(float(np.percentile(lat, 99)), 1) if lat else None,
           "result_after_rest_ms_max": round(float(max(lat)), 1) if lat else None,
           "results_before_true_rest": sum(r["before_rest"] for r in rows),
           "no_call": sum(r["announce_t"] is None for r in rows),
           "wrong": wrong, "unsure": sum(r["result"] == "unsure" for r in rows),
           # where the still periods began: the last motion the rule saw, after the true rest
           # how often, and which check saw it (see --trace)
           "last_motion_after_rest": sum((r["last_motion"] or {}).get("frame_ms", -1) > 0 for r in rows),
           "last_motion_ms_max": max([r["last_motion"]["frame_ms"] for r in rows if r["last_motion"]], default=None),
           "last_motion_checks": {c: sum(any(x.get("check") == c for x in (r["last_motion"] or {}).get("seen", []))
                                         for r in rows) for c in ("previous", "anchor", "fine")},
           "adjudicate_cpu_ms_median": round(float(np.median([r.get("cpu_ms", 0) for r in rows])), 1) if rows else None}
    print(json.dumps(out))
    return 1 if wrong or out["results_before_true_rest"] else 0
