"""Tell a casino chip from a coin by its rim: a chip's edge carries evenly spaced spots of
another colour (the "edge spots" or inserts); a coin is one metal all round.

Measured on the object's own outline (the ellipse `detect.measure` fitted in the ring plane),
mapped back into the frame, so it works at any size, in an oblique view and after blur/JPEG.
"""
import math

import cv2
import numpy as np

N_ANG = 120                         # samples round the rim (3 deg)
# fractions of the measured outline's radius where the spots sit: just inside it, and beyond it
# for a chip whose outline was measured on its inner circle (~0.6 of its radius: the light
# ring inside the spots stops the outline search on some layouts and floors)
BANDS = {"own": (0.66, 0.74, 0.82, 0.9), "beyond": (1.3, 1.42, 1.54, 1.66)}
HARMONICS = range(3, 13)            # chips carry 3-12 spots


def rim_samples(img, plane_to_image, center, axes, angle_deg, radii=BANDS["own"]):
    """(len(radii), N_ANG, 3) float32 BGR samples on ellipses scaled from the object's outline.

    `plane_to_image` is the 2x3 affine from ring-plane px to image px; `center`, `axes` (a, b)
    and `angle_deg` describe the fitted outline in the plane."""
    t = np.arange(N_ANG, dtype=np.float64) * (2 * math.pi / N_ANG)
    ph = math.radians(angle_deg)
    a, b = axes
    u = np.outer(radii, np.cos(t))
    v = np.outer(radii, np.sin(t))
    px = center[0] + a * u * math.cos(ph) - b * v * math.sin(ph)
    py = center[1] + a * u * math.sin(ph) + b * v * math.cos(ph)
    m = np.asarray(plane_to_image, np.float64)
    ix = (m[0, 0] * px + m[0, 1] * py + m[0, 2]).astype(np.float32)
    iy = (m[1, 0] * px + m[1, 1] * py + m[1, 2]).astype(np.float32)
    return cv2.remap(img, ix, iy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)


def rim_features(samples):
    """-> {"spot": contrast of the strongest evenly spaced pattern of colour change round the rim,
    "periodic": the share of the rim's colour variation in that pattern, "n": its count}.

    Colour change is chromatic (normalised b, g, r) plus brightness (log), each taken against
    the rim's own median, so lighting, shading and the metal's relief barely count while a white
    spot on an orange chip, or on a black one, counts fully."""
    s = samples.sum(axis=2, keepdims=True) + 30.0
    chroma = samples / s
    body_c = np.median(chroma.reshape(-1, 3), axis=0)
    logb = np.log(s[..., 0])
    body_b = float(np.median(logb))
    dev = np.abs(chroma - body_c).sum(axis=2) + 0.25 * np.abs(logb - body_b)
    prof = dev.max(axis=0)                 # per angle: the strongest change at any of the radii
    prof = prof - prof.mean()
    spec = np.abs(np.fft.rfft(prof)) * (2.0 / N_ANG)    # amplitude of each harmonic
    power = spec[1:] ** 2
    k = max(HARMONICS, key=lambda h: spec[h])
    # a train of n spots puts its variation at n, 2n, 3n...: its share of all the variation
    share = float(power[k - 1::k].sum() / (power.sum() + 1e-12))
    return {"spot": round(float(spec[k]), 4), "periodic": round(share, 3), "n": int(k)}


def chip_rim(img, ring, blob):
    """rim_features of a measured blob (detect.Blob with plane_center and axes), from the band
    (BANDS) that looks most like a chip's edge, with "band" naming it."""
    inv = cv2.invertAffineTransform(ring.to_plane)
    best = None
    for name, radii in BANDS.items():
        f = rim_features(rim_samples(img, inv, blob.plane_center, blob.axes, blob.angle_deg, radii))
        f["band"] = name
        if best is None or f["spot"] * f["periodic"] > best["spot"] * best["periodic"]:
            best = f
    return best
