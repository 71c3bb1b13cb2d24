"""Coverage of the ring by a camera rig: pixels per coin and how many cameras see each point.

A point of the layout counts as seen by a camera when a whole coin lying there is in its
frame; its pixels per coin are the coin's diameter in that camera's image along the
direction the homography squeezes most. The ring is read at `coin_px_min`, the worst point
over the whole layout of the best camera there; under MIN_COIN_PX (40) a face cannot be read
and the check fails (as does any point no camera sees whole).
"""
import numpy as np

from .ring import MIN_COIN_PX


def grid(ring_mm, step_mm=25.0):
    """Points (N, 2) on the layout (disc of diameter ring_mm, centre 0), the edge included."""
    R = ring_mm / 2
    xs = np.arange(-R, R + step_mm / 2, step_mm)
    xx, yy = np.meshgrid(xs, xs)
    p = np.stack([xx.ravel(), yy.ravel()], 1)
    p = p[np.hypot(p[:, 0], p[:, 1]) <= R]
    a = np.linspace(0, 2 * np.pi, int(2 * np.pi * R / step_mm), endpoint=False)
    return np.concatenate([p, R * np.stack([np.cos(a), np.sin(a)], 1)])


def per_view(rig, pts):
    """(px per coin (V, N) with 0 where a whole coin is not in view) for each camera."""
    out = np.zeros((len(rig.views), len(pts)))
    for k, v in enumerate(rig.views):
        seen = v.whole_in_view(pts, rig.coin_mm / 2)
        out[k] = np.where(seen, rig.coin_mm * v.px_per_mm(pts), 0.0)
    return out


def coverage(rig, step_mm=25.0, need_px=MIN_COIN_PX):
    """-> {ok, coin_px_min, coin_px_median, cameras_per_point {n: fraction}, unseen_fraction,
    under_px_fraction, worst_mm, per_camera [{name, coin_px_min, coin_px_max, layout_fraction}], text}."""
    pts = grid(rig.ring_mm, step_mm)
    px = per_view(rig, pts)
    best = px.max(axis=0)
    n_cams = (px > 0).sum(axis=0)
    worst = int(np.argmin(best))
    counts = {int(k): round(float(np.mean(n_cams == k)), 4) for k in range(len(rig.views) + 1)
              if np.any(n_cams == k)}
    cams = []
    for k, v in enumerate(rig.views):
        s = px[k][px[k] > 0]
        cams.append({"name": v.name, "coin_px_min": round(float(s.min()), 1) if s.size else 0.0,
                     "coin_px_max": round(float(s.max()), 1) if s.size else 0.0,
                     "layout_fraction": round(float(s.size / len(pts)), 3)})
    out = {"ok": bool(best.min() >= need_px), "need_px": need_px,
           "coin_px_min": round(float(best.min()), 1), "coin_px_median": round(float(np.median(best)), 1),
           "cameras_per_point": counts, "unseen_fraction": round(float(np.mean(n_cams == 0)), 4),
           "under_px_fraction": round(float(np.mean(best < need_px)), 4),
           "worst_mm": [round(float(v), 0) for v in pts[worst]], "per_camera": cams}
    out["text"] = describe(out)
    return out


def describe(c):
    """One line a technician can act on."""
    seen = ", ".join(f"{n} camera{'s' if n != 1 else ''}: {100 * f:.0f}%"
                     for n, f in sorted(c["cameras_per_point"].items()))
    line = (f"{c['coin_px_min']:.0f} px per coin at worst (median {c['coin_px_median']:.0f}); "
            f"points of the layout seen whole by {seen}")
    if c["ok"]:
        return line
    if c["unseen_fraction"] > 0:
        return (line + f"; {100 * c['unseen_fraction']:.1f}% of the layout (e.g. at {c['worst_mm']} mm) "
                "is seen whole by no camera: widen the views' overlap (hardware/INSTALL.md section 6)")
    return (line + f"; under {c['need_px']} px on {100 * c['under_px_fraction']:.0f}% of the layout "
            f"(worst at {c['worst_mm']} mm): more pixels per zone, a longer lens or more cameras "
            "(hardware/INSTALL.md section 6)")
