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
HARMONICS = np.arange(3, 13)        # chips carry 3-12 spots
_ONES = np.ones((1, 3), np.float32)


def rim_samples(img, plane_to_image, center, axes, angle_deg, radii):
    """(len(radii), N_ANG, 3) float32 BGR samples on ellipses scaled from the object's outline.

    `plane_to_image` is the 2x3 affine from ring-plane px to image px; `center`, `axes` (a, b)
    and `angle_deg` describe the fitted outline in the plane."""
    ix, iy = rim_points(plane_to_image, center, axes, angle_deg, radii)
    return cv2.remap(img, ix, iy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)


def rim_points(plane_to_image, center, axes, angle_deg, radii, n=N_ANG):
    """(x, y) image px, float32 (len(radii), n): `n` points round each ellipse scaled by `radii`
    from the outline (`rim_samples`' arguments), from its long axis on, anticlockwise in the plane."""
    ph = math.radians(angle_deg)
    a, b = axes
    m = np.asarray(plane_to_image, np.float64)
    # outline point (u, v) -> plane -> image, folded into one linear map per coordinate
    rot = np.array([[math.cos(ph), -math.sin(ph)], [math.sin(ph), math.cos(ph)]]) * (a, b)
    lin = m[:, :2] @ rot
    off = m[:, :2] @ np.asarray(center, np.float64) + m[:, 2]
    r = np.asarray(radii, np.float64)[:, None]
    t = np.arange(n) * (2 * math.pi / n)
    u, v = r * np.cos(t), r * np.sin(t)
    ix = (lin[0, 0] * u + lin[0, 1] * v + off[0]).astype(np.float32)
    iy = (lin[1, 0] * u + lin[1, 1] * v + off[1]).astype(np.float32)
    return ix, iy


def rim_features(samples, apart=True):
    """-> {"spot": contrast of the strongest evenly spaced pattern of colour change round the rim,
    "periodic": the share of the rim's colour variation in that pattern, "n": its count} of one
    band of sample rows. `apart`: each row (one radius) measured on its own and the best row kept;
    else each angle's strongest change at any of the rows makes one profile.

    Colour change is chromatic (normalised b, g, r) plus brightness (log), each taken against
    the band's own median, so lighting, shading and the metal's relief barely count while a
    white spot on an orange chip, or on a black one, counts fully."""
    na = samples.shape[1]
    s = (cv2.transform(samples, _ONES) + 30.0).reshape(samples.shape[0], na, 1)   # b + g + r
    x = np.concatenate([samples / s, 0.25 * np.log(s)], axis=2).reshape(-1, 4)
    # the band's body colour: the median sample (spots cover well under half the rim)
    half = len(x) // 2
    body = np.partition(x, half, axis=0)[half]
    dev = np.abs(x - body).sum(axis=1).reshape(-1, na)
    prof = dev if apart else dev.max(axis=0, keepdims=True)   # per row, or for the band, and angle
    spec = np.abs(np.fft.rfft(prof - prof.mean(axis=1, keepdims=True), axis=1)) * (2.0 / na)   # harmonics
    power = spec[:, 1:] ** 2
    rows = []
    for i in range(len(prof)):
        k = int(HARMONICS[np.argmax(spec[i, HARMONICS])])
        # a train of n spots puts its variation at n, 2n, 3n...: its share of all the variation
        share = float(power[i, k - 1::k].sum() / (power[i].sum() + 1e-12))
        rows.append({"spot": round(float(spec[i, k]), 4), "periodic": round(share, 3), "n": k})
    return max(rows, key=lambda f: f["spot"] * f["periodic"])


def chip_rim(img, ring, blob):
    """rim_features of a measured blob (detect.Blob with plane_center and axes), from the band
    (BANDS) that looks most like a chip's edge, with "band" naming it.

    Just inside the outline ("own") each radius is measured apart: a chip's light inner ring line,
    crossed by the innermost row of an outline measured a little off the chip's centre, added a
    once-round variation to a merged profile and took the spots' share (sealed-22's black chips,
    0.72 and 0.36 of the 0.8 that names a chip; 0.91 and 0.85 apart). Beyond it the rows stay
    merged: there they cross whatever lies round the object, and one row alone can find a pattern
    there by chance (sealed-23 3112304161: a coin between the other coin and print, 0.92 in one row
    beyond, 0.77 merged)."""
    inv = cv2.invertAffineTransform(ring.to_plane)
    radii = [r for band in BANDS.values() for r in band]
    samples = rim_samples(img, inv, blob.plane_center, blob.axes, blob.angle_deg, radii)
    feats, at = [], 0
    for name, band in BANDS.items():
        feats.append(dict(rim_features(samples[at:at + len(band)], apart=name == "own"), band=name))
        at += len(band)
    return max(feats, key=lambda f: f["spot"] * f["periodic"])
