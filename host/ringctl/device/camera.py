"""Camera checks for the doctor: resolution, measured frame rate, and the coin size in pixels it implies."""
import time

COIN_MM = 30.8          # Australian penny used for Two-Up
MIN_COIN_PX = 40        # below this the face classifier cannot read the coin: answers "unsure"
GOOD_COIN_PX = 60
MIN_FPS = 30            # rest/wobble detection aliases below this


def coin_pixels(width, height, fov_mm, coin_mm=COIN_MM):
    """Pixels across one coin when the frame's SHORT side spans fov_mm of layout.

    The ring is round, so the camera's short side must cover it; a 3 m ring on a 3840x2160
    sensor therefore gets 2160 px across 3 m, not 3840.
    """
    return coin_mm * min(width, height) / float(fov_mm)


def open_source(spec):
    """cv2.VideoCapture for a device index ('0'), file or URL; None if it cannot open."""
    import cv2
    cap = cv2.VideoCapture(int(spec) if str(spec).isdigit() else str(spec))
    if not cap.isOpened():
        return None
    return cap


def measure(spec, frames=30, max_s=3.0):
    """-> dict(width, height, fps_reported, fps_measured, frames) or dict(error=...)."""
    import cv2
    cap = open_source(spec)
    if cap is None:
        return {"error": f"cannot open camera {spec!r}"}
    try:
        got, t0, shape = 0, time.monotonic(), None
        while got < frames and time.monotonic() - t0 < max_s:
            ok, frame = cap.read()
            if not ok:
                break
            shape = frame.shape
            got += 1
        dt = time.monotonic() - t0
        if shape is None:
            return {"error": f"camera {spec!r} opened but gave no frame"}
        reported = cap.get(cv2.CAP_PROP_FPS) or 0.0
        live = str(spec).isdigit() or "://" in str(spec)
        return {"width": int(shape[1]), "height": int(shape[0]), "frames": got,
                "fps_reported": round(reported, 2),
                # A file decodes as fast as it can: only a live source's timing means anything.
                "fps_measured": round(got / dt, 2) if live and dt > 0 and got > 1 else None}
    finally:
        cap.release()
