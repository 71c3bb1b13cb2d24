"""Camera checks for the doctor: resolution, measured frame rate, and the coin size in pixels it implies."""
import time

COIN_MM = 30.8          # Australian penny used for Two-Up
MIN_COIN_PX = 40        # below this the face classifier cannot read the coin: answers "unsure"
GOOD_COIN_PX = 60
MIN_FPS = 30            # rest/wobble detection aliases below this


def zone_coin_pixels(width, height, zone_a_mm, zone_b_mm, coin_mm=COIN_MM):
    """Pixels per coin for a camera covering a zone_a x zone_b rectangle of layout, with the
    sensor turned whichever way gives more pixels (for the multi-camera layouts)."""
    long_px, short_px = max(width, height), min(width, height)
    long_mm, short_mm = max(zone_a_mm, zone_b_mm), min(zone_a_mm, zone_b_mm)
    return coin_mm * min(long_px / float(long_mm), short_px / float(short_mm))


# Layouts compared in hardware/INSTALL.md (a test keeps that table equal to these figures).
# (label, sensor w, h px, cameras, zone per camera mm x mm)
LAYOUTS = (
    ("1080p, one camera", 1920, 1080, 1, 3000, 3000),
    ("4K UHD, one camera", 3840, 2160, 1, 3000, 3000),
    ("12 MP 4:3, one camera", 4056, 3040, 1, 3000, 3000),
    ("4K UHD, two cameras (halves)", 3840, 2160, 2, 3000, 1600),
    ("12 MP 4:3, two cameras (halves)", 4056, 3040, 2, 3000, 1600),
    ("4K UHD, four cameras (quadrants)", 3840, 2160, 4, 1600, 1600),
    ("12 MP 4:3, four cameras (quadrants)", 4056, 3040, 4, 1600, 1600),
)


def layout_table():
    """[(label, cameras, zone text, coin px)] for the LAYOUTS above."""
    return [(label, n, "%.1f x %.1f m" % (a / 1000.0, b / 1000.0),
             round(zone_coin_pixels(w, h, a, b), 1)) for label, w, h, n, a, b in LAYOUTS]


def measure(spec, frames=30, max_s=3.0):
    """-> dict(width, height, fps_reported, fps_measured, frames) or dict(error=...).
    spec: anything ringctl.vision.sources.open_source takes (camera index, video file, image
    folder, stream URL)."""
    from ..errors import UserError
    from ..vision.sources import open_source
    try:
        src = open_source(spec)
    except UserError as exc:
        return {"error": str(exc)}
    try:
        got, t0, shape, last = 0, time.monotonic(), None, None
        while got < frames and time.monotonic() - t0 < max_s:
            frame, _ = src.read()
            if frame is None:
                break
            shape, last = frame.shape, frame
            got += 1
        dt = time.monotonic() - t0
        if shape is None:
            return {"error": f"camera {spec!r} opened but gave no frame"}
        live = str(spec).isdigit() or "://" in str(spec)
        return {"width": int(shape[1]), "height": int(shape[0]), "frames": got, "frame": last,
                "fps_reported": round(src.fps or 0.0, 2),
                # A file decodes as fast as it can: only a live source's timing means anything.
                "fps_measured": round(got / dt, 2) if live and dt > 0 and got > 1 else None}
    finally:
        src.close()


def ring_coin_pixels(frame):
    """Coin size measured from the ring in view (ringctl.vision calibration) ->
    (px per coin, None) or (None, why not): a zone camera does not see the whole ring."""
    from ..errors import UserError
    from ..vision.ring import calibrate
    try:
        model = calibrate(frame, coin_mm=COIN_MM)
    except UserError as exc:
        return None, str(exc)
    return 2 * model.coin_radius_px, None
