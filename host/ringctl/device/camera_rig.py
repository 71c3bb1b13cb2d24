"""Where to hang 2 or 4 cameras over a full-size ring, the coverage each layout gives, and its figure.

Each camera hangs straight above the centre of its zone (a half or a quadrant of the ring,
reaching OVERLAP_MM past the seam and a coin's width past the ring's edge, so a coin lying
anywhere on the layout is whole in at least one view), sensor parallel to the layout, its
long side along the zone's long side. `layout_coverage()` runs the coverage check
(vision/coverage.py) on that rig; hardware/INSTALL.md's placement table and
hardware/cameras.svg are made from it (`python -m ringctl.device.camera_rig` rewrites the SVG;
tests/device/test_camera_rig.py keeps both true).
"""
from pathlib import Path

import numpy as np

from .camera import COIN_MM

RING_MM = 3000.0
OVERLAP_MM = 100.0
EDGE_MM = 50.0            # past the ring's edge: a whole coin there, plus margin
HEIGHT_MM = 3800.0        # above the layout: out of a thrown coin's reach (7.1.2)
SVG_PATH = Path(__file__).resolve().parents[3] / "hardware" / "cameras.svg"

# (label, sensor w, h px, sensor w, h mm, cameras)
LAYOUTS = (
    ("12 MP 4:3 (IMX477), two cameras", 4056, 3040, 6.29, 4.71, 2),
    ("4K UHD (1/2.8\"), two cameras", 3840, 2160, 5.57, 3.13, 2),
    ("4K UHD (1/2.8\"), four cameras", 3840, 2160, 5.57, 3.13, 4),
    ("12 MP 4:3 (IMX477), four cameras", 4056, 3040, 6.29, 4.71, 4),
)


def zones(cameras, ring_mm=RING_MM, overlap_mm=OVERLAP_MM, edge_mm=EDGE_MM):
    """[(x0, x1, y0, y1)] mm of layout each camera must see (ring centre 0)."""
    R = ring_mm / 2 + edge_mm
    lo, hi = -R, overlap_mm / 2
    if cameras == 2:
        return [(lo, hi, -R, R), (-hi, -lo, -R, R)]
    if cameras == 4:
        return [(lo, hi, -hi, -lo), (-hi, -lo, -hi, -lo), (lo, hi, lo, hi), (-hi, -lo, lo, hi)]
    return [(-R, R, -R, R)]


def placement(width_px, height_px, width_mm, height_mm, zone, height_mm_above=HEIGHT_MM):
    """Camera over one zone -> dict(centre mm, px per mm, lens mm, image size, turned)."""
    x0, x1, y0, y1 = zone
    zw, zh = x1 - x0, y1 - y0
    long_px, short_px = max(width_px, height_px), min(width_px, height_px)
    long_s, short_s = max(width_mm, height_mm), min(width_mm, height_mm)
    turned = zh > zw                                    # long side along the zone's long side
    zl, zs = max(zw, zh), min(zw, zh)
    ppm = min(long_px / zl, short_px / zs)
    # focal length that makes the sensor cover the zone from the height (long side fits first)
    lens = min(long_s / zl, short_s / zs) * height_mm_above
    size = (short_px, long_px) if turned else (long_px, short_px)
    return {"centre_mm": ((x0 + x1) / 2, (y0 + y1) / 2), "px_per_mm": ppm, "lens_mm": lens,
            "size": size, "turned": turned}


def _view(name, p, ring_mm):
    from ..vision.viewcal import CameraView
    w, h = p["size"]
    k = 1.0 / p["px_per_mm"]
    cx, cy = p["centre_mm"]
    H = np.array([[k, 0, cx - k * w / 2], [0, -k, cy + k * h / 2], [0, 0, 1.0]])
    return CameraView(name, H, _ring_stub(w, h, H, ring_mm))


def _ring_stub(w, h, H, ring_mm):
    """A RingModel carrying only what the coverage check reads (image size)."""
    from ..vision.ring import RingModel
    c = np.linalg.inv(H) @ np.array([0.0, 0.0, 1.0])
    r = ring_mm / 2 / abs(H[0, 0])
    return RingModel((w, h), (c[0] / c[2], c[1] / c[2]), (r, r), 0.0, np.zeros((1, 1, 3), np.uint8),
                     COIN_MM, ring_mm)


def layout_coverage(width_px, height_px, width_mm, height_mm, cameras, ring_mm=RING_MM):
    """-> (coverage dict, [placement]) for `cameras` of this sensor over the ring."""
    from ..vision.coverage import coverage
    from ..vision.viewcal import Rig
    places = [placement(width_px, height_px, width_mm, height_mm, z) for z in zones(cameras, ring_mm)]
    rig = Rig([_view("ABCD"[k], p, ring_mm) for k, p in enumerate(places)], ring_mm, COIN_MM)
    return coverage(rig, step_mm=20.0), places


def table():
    """Rows of hardware/INSTALL.md's placement table: (layout, cameras, zone, lens, worst px per
    coin, % of the layout seen whole by two or more cameras, coverage check)."""
    rows = []
    for label, w, h, sw, sh, n in LAYOUTS:
        c, places = layout_coverage(w, h, sw, sh, n)
        x0, x1, y0, y1 = zones(n)[0]
        a, b = sorted((abs(x1 - x0) / 1000, abs(y1 - y0) / 1000), reverse=True)
        two = sum(f for k, f in c["cameras_per_point"].items() if k >= 2)
        rows.append((label, n, "%.2f x %.2f m" % (a, b), "%.1f mm" % places[0]["lens_mm"],
                     round(c["coin_px_min"], 1), round(100 * two, 1), "pass" if c["ok"] else "FAIL"))
    return rows


def svg():
    """Plan view of the 2- and 4-camera layouts over a 3 m ring (hardware/cameras.svg)."""
    s, pad, gap = 0.12, 30, 80                # px per mm, margins
    R = RING_MM / 2
    panel = 2 * (R + EDGE_MM + 100) * s
    W, H = int(2 * panel + gap + 2 * pad), int(panel + 2 * pad + 110)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           'font-family="sans-serif" font-size="13">',
           f'<rect width="{W}" height="{H}" fill="white"/>']
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    for k, (n, label, w, h, sw, sh) in enumerate(((2, "Two 12 MP cameras over the halves", 4056, 3040, 6.29, 4.71),
                                                  (4, "Four 4K cameras over the quadrants", 3840, 2160, 5.57, 3.13))):
        left = pad + k * (panel + gap)
        ox, oy = left + panel / 2, pad + 45 + panel / 2
        c, places = layout_coverage(w, h, sw, sh, n)
        out.append(f'<text x="{left:.0f}" y="{pad + 4}" font-size="15" font-weight="bold">{label}</text>')
        out.append(f'<text x="{left:.0f}" y="{pad + 24}">{c["coin_px_min"]:.0f} px per coin at worst '
                   f'(coverage check: {"pass" if c["ok"] else "FAIL"})</text>')
        out.append(f'<circle cx="{ox:.1f}" cy="{oy:.1f}" r="{R * s:.1f}" fill="#2e6b32" stroke="#6b4a2b" '
                   f'stroke-width="{65 * s:.1f}"/>')
        for i, (z, p) in enumerate(zip(zones(n), places)):
            x0, x1, y0, y1 = z
            col = colours[i]
            out.append(f'<rect x="{ox + x0 * s:.1f}" y="{oy - y1 * s:.1f}" width="{(x1 - x0) * s:.1f}" '
                       f'height="{(y1 - y0) * s:.1f}" fill="{col}" fill-opacity="0.15" stroke="{col}" '
                       'stroke-width="2"/>')
            cx, cy = p["centre_mm"]
            out.append(f'<circle cx="{ox + cx * s:.1f}" cy="{oy - cy * s:.1f}" r="9" fill="{col}" '
                       'stroke="white" stroke-width="2"/>')
            out.append(f'<text x="{ox + cx * s:.1f}" y="{oy - cy * s + 4.5:.1f}" fill="white" '
                       f'text-anchor="middle" font-weight="bold">{"ABCD"[i]}</text>')
        y = oy + panel / 2 + 22
        out.append(f'<text x="{left:.0f}" y="{y:.0f}">Cameras {"AB" if n == 2 else "ABCD"} straight down, '
                   f'{HEIGHT_MM / 1000:.1f} m up, {places[0]["lens_mm"]:.1f} mm lens;</text>')
        out.append(f'<text x="{left:.0f}" y="{y + 18:.0f}">zones overlap {OVERLAP_MM / 1000:.1f} m at the seams '
                   f'and reach {EDGE_MM / 1000:.2f} m past the 3.0 m ring.</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    SVG_PATH.write_text(svg())
    print(f"wrote {SVG_PATH}")
    for row in table():
        print(row)
