"""Learn and read the two faces of the casino's coins, at any rotation and light, with a reject option.

Each coin is resampled to a small fixed-size disc (undoing the oblique view), so every coin
40-120 px across is compared at one common, coarse scale: a 40 px blurred coin and a sharp
120 px training photo then show the same detail. The disc is described by features that a
change of light direction leaves alone (a relief's edges shade bright on the side facing the
light and dark on the other, and which side is which turns with the light):
  - the **orientation** of the local edges (structure tensor, doubled angle, so a dark-to-bright
    edge and a bright-to-dark one are the same), measured against the radial direction so it
    turns with the coin, weighted by local edge strength normalised by its neighbourhood;
  - the **edge strength** itself, normalised by its neighbourhood (contrast drops out).
Brightness is not used: on a relief face it is mostly the light's direction, not the design.
These are unwrapped with warpPolar, so two coins are compared over every rotation at once by
FFT circular correlation along the angle axis. A face is read only when its best match is good,
clearly better than the other face's, and both cues on their own carry part of that margin
(`FaceModel.read`; under a lamp far lower than the photos', EDGE_SILENT); the margin scales with
how well the training photos separate (leave-one-out), within bounds that keep an ambiguous coin
`unsure`. docs/VISION.md has the why.
"""
import base64
import binascii
import copy
import json
import math

import cv2
import numpy as np

from ..errors import UserError
from . import balance, detect
from .ring import NOT_DRAWN, SETTLED

# photos per face the technician takes in the ring (hardware/INSTALL.md): a clock-hour turn apart
RECOMMENDED_PHOTOS = 12

FEATURES_VERSION = 4  # a model file's templates are these features (3: relit ones; 4: without the coin-wide lean): older files must be retrained
PATCH_R = 18          # coin radius in the normalised patch, px: one coarse scale for every coin size
N_ANG = 128
N_RAD = 14
R_IN, R_OUT = 0.12, 0.86   # the field inside the rim: the rim is the same on both faces
PRE_BLUR = 0.6        # patch px: noise and JPEG blocks out before gradients
TENSOR_BLUR = 0.9     # patch px: the structure tensor's window (the edges' local orientation)
NORM_BLUR = 2.4       # patch px: the neighbourhood that edge strength is normalised by
NORM_FLOOR = 0.05     # of the patch's mean edge energy: a blank field stays weak, not noise made strong
CUES = ((0,), (1, 2))  # feature channels of each independent cue: edge strength, edge orientation
_CUE_STARTS = [c[0] for c in CUES]   # each cue's channels follow one another (np.add.reduceat sums them)
assert [i for c in CUES for i in c] == [0, 1, 2], "cue_match sums each cue's channels as one run"
_CUE_SHARE = np.array([len(c) / 3 for c in CUES])   # each cue's share of the combined score
CUE_SHARE_MIN = 0.2   # a read face's margin must come at least this much from every cue's share (but EDGE_SILENT)
_CUE_NEED = (CUE_SHARE_MIN * _CUE_SHARE).tolist()   # of a face's margin, each cue's part at least
# Weighed within the relit drawings under a lamp far lower than the photos' (`FaceModel.read`),
# edge strength may say nothing: the shading of a low lamp is what changes it most (bright edges
# facing the lamp, dark ones away), while edge orientation is the same either way. There the
# orientation cue on its own must carry the margin, and edge strength be against by at most this
EDGE_SILENT = 0.03
MIN_SCORE_FLOOR = 0.28        # best match a face needs at least (blank/noisy discs score <= 0.26)
MARGIN_OF_MEDIAN = 0.13       # min margin = this x the photos' median leave-one-out margin ...
MARGIN_BOUNDS = (0.07, 0.12)  # ... within these bounds
# the photos' median leave-one-out margin a model needs: a clean model's is 0.5-0.75; 6 photos a
# sixth of a turn apart under a 42 deg lamp give 0.15 (faces that barely separate under the
# training light cannot keep the wrong face out under another)
LOO_MEDIAN_MIN = 0.25
# A coin whose edges lean (`lean`) less than LEAN_HIGHER x the training photos' median lean (and
# by LEAN_GAP at least) is lit by a higher lamp than they were; more than LEAN_LOWER x it +
# LEAN_GAP, a lower one (FaceModel.lamp). Under a higher lamp the relit drawings cannot stand in
# (what a low lamp adds, clipped shadows and highlights, they keep): the face must win by a margin
# growing to HIGHER_LAMP_MARGIN at LEAN_FAR x the photos' lean (docs/VISION.md, issue 12, v12j).
LEAN_HIGHER, LEAN_FAR, LEAN_LOWER, LEAN_GAP = 0.7, 0.35, 2.0, 0.05
HIGHER_LAMP_MARGIN = 0.18
# A design can lean by itself (a line of lettering, brick courses): its lean and the lamp's add as
# vectors (`lean_vector`) and can cancel, so a lettered face under a lamp far lower than the
# photos' leaned less than they did and needed the higher lamp's margin (sealed-18, opened:
# tails lit 36-39 deg high, photos 76-81 deg). The photos' vectors, each coin at its registered
# turn, fit vector = design's lean turned with the coin + the lamp's: the light's lean at a coin
# is its vector less the design's lean at its turn (`FaceModel.light_leans`), compared with the
# photos' light lean; the fit is used only where it explains the photos to LIGHT_FIT_RMS.
LIGHT_FIT_RMS = 0.1
# A training photo whose coin is at the camera's limit (a channel at CLIP_LEVEL or more) over
# more than CLIP_MAX of its face (inside the rim) has lost the coin's colour and relief there: the
# photo is refused with the fix (a lower exposure). The held-out sets' training site (lamps 1.12x,
# 76-81 deg high) clipped 65-91% of sealed-14's and sealed-15's coins, 22-82% of tune-relief's,
# edge-tune's, tune-light's; sealed-14's site model, trained at a lower exposure, read 157 of its
# 161 collected play coins where clipped it read 150 (none wrong either way), and sealed-15's
# measured the coin's colour 0.16 off its colour in play (docs/VISION.md, "A coin clipped in training").
CLIP_LEVEL = detect.CLIP_LEVEL
CLIP_MAX = 0.5
CLIPPED = ("the coin is at the camera's limit over {:.0%} of its face (its colour and relief are lost "
           "there): lower the camera's exposure (or dim the lamps), recalibrate with the ring empty "
           "(ring vision calibrate) and retake the photos")
# ... and the same once a photo darker than the calibration is brought to its exposure (balance):
# the coin saturates in the copy training reads; the fix is a calibration at the photos' exposure
CLIPPED_BALANCED = ("the coin is at the camera's limit over {:.0%} of its face once the photo is brought to "
                    "the calibration's exposure (the photo is darker than the empty ring's photo): recalibrate "
                    "with the ring empty at this exposure (ring vision calibrate) and retake the photos")
# The training coin found by its known size (`_coin_of_size`): one coin, of the calibrated size,
# in an otherwise empty ring. Its outline is looked for as a circle of that radius (a fixed-radius
# Hough vote of the edges in the ring plane, SIZE_WORK_R px per coin radius) near where the frame
# differs most from the empty ring; it is the coin's when edges lie on it (within SIZE_ON_TOL
# coin radii, 1 px at least, across the radius) in SIZE_SUPPORT of its 5-deg arcs. On edge-tune's
# print rings (360 photos) the coin's rim covers 0.917-1.0 of the arcs with no gap over 10 deg
# (over ink of its own colour too: the rim still shades); the empty ring's best circle 0.26 at
# most; a coin-coloured disc with a straight cut half way to its centre 0.78 with a 40 deg gap.
# A circle SIZE_AGREE coin radii or more from the coin finder's outline is no measurement either
# can be trusted on: refused (the finder's outline can take in ink; the circle, a coin's shadow).
SIZE_WORK_R = 24.0
SIZE_ON_TOL = 0.03
SIZE_SUPPORT = 0.85
SIZE_RADIUS = (0.93, 1.07)   # of the calibrated coin radius, the circle's own fit
SIZE_GAP = 25   # deg: ... and no longer arc of it without one (a coin with a piece cut off: 40)
SIZE_AGREE = 0.1
SIZE_AGREE_R = 0.05   # ... and where their radii differ by more than this share, the circle is taken
SIZE_ELSEWHERE = 0.2   # coin areas of an object in the ring 1.3 coin radii or more from that circle: not the coin
# The coin found against the empty ring's photo (`_coin_against_empty`, training with `empty`):
# the edges of the photo less the empty ring vote (print is in both); the circle needs EMPTY_SUPPORT of its arcs; the layout EMPTY_AROUND
# coin radii from its centre (past the rim and the drop shadow) may differ from the empty ring
# in at most EMPTY_AROUND_MAX of its pixels; EMPTY_PEAKS Hough peaks are tried.
EMPTY_SUPPORT, EMPTY_GAP = 0.85, 25   # as `_coin_of_size` (a coin tilted 35 deg on print: 0.81, 35 deg)
EMPTY_AROUND = (1.22, 2.2)
EMPTY_AROUND_MAX = 0.05
EMPTY_PEAKS = 6
EMPTY_RIM_OUT = 1.08
EMPTY_FLAT = 0.93   # the rim's short axis of its long one, at least (detect's and the finder's flat: 0.93)
EMPTY_ON_PX = 1.5   # px: an edge on the circle (the print taken out leaves little to stray onto it)
EMPTY_BEYOND = (1.05, 1.18)
EMPTY_BEYOND_MIN = 6.0
SHADOW_STEP, SHADOW_REACH = 0.025, 0.15   # coin radii: `_off_shadow`'s grid of centre shifts
BEYOND_MAX, BEYOND_MARGIN = 0.15, 0.15   # `_beyond` of the measurement taken, at most; of the other, this much more


def _radial_phase():
    """cos, sin of twice each patch pixel's polar angle: orientations measured from the radius."""
    yy, xx = np.mgrid[0:2 * PATCH_R + 1, 0:2 * PATCH_R + 1].astype(np.float32) - PATCH_R
    phi = np.arctan2(yy, xx)
    return np.cos(2 * phi).astype(np.float32), np.sin(2 * phi).astype(np.float32)


_COS2, _SIN2 = _radial_phase()


def _field():
    """The patch pixels of the field inside the rim (what the polar maps cover)."""
    yy, xx = np.mgrid[0:2 * PATCH_R + 1, 0:2 * PATCH_R + 1] - PATCH_R
    rr = xx * xx + yy * yy
    return (rr >= (R_IN * PATCH_R) ** 2) & (rr <= (R_OUT * PATCH_R) ** 2)


_FIELD = _field()


def coin_patch(img, ring, blob, radius=PATCH_R):
    """The coin as a (2*radius+1)^2 grey patch, square-on, radius `radius` (PATCH_R: the reader's)."""
    inv = cv2.invertAffineTransform(ring.to_plane)
    s = blob.axes[0] / radius if blob.axes else ring.coin_radius_px / radius
    size = 2 * radius + 1
    # patch px -> plane px -> image px
    p2plane = np.array([[s, 0, blob.plane_center[0] - s * radius], [0, s, blob.plane_center[1] - s * radius]])
    m = inv[:, :2] @ p2plane
    m[:, 2] = inv[:, :2] @ p2plane[:, 2] + inv[:, 2]
    # crop first so the warp and the pre-blur touch only the coin
    c = m[:, 2] + m[:, :2] @ np.array([radius, radius])
    reach = int(math.ceil(radius * s * 1.5)) + 3
    x0, y0 = max(0, int(c[0]) - reach), max(0, int(c[1]) - reach)
    crop = img[y0:int(c[1]) + reach + 1, x0:int(c[0]) + reach + 1]
    if crop.size == 0:   # off the picture: a blank patch reads as nothing (face None)
        return np.zeros((size, size), np.uint8)
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    if s > 1.3:   # shrinking: low-pass first
        grey = cv2.GaussianBlur(grey, (0, 0), 0.45 * s)
    m[:, 2] -= (x0, y0)
    return cv2.warpAffine(grey, m, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def _polar(ims):
    """(3, N_RAD, N_ANG) polar maps of three patch images' field inside the rim, each unit RMS
    (row means removed).

    One warp and one resize of the three as channels (each channel's values as alone). The
    means are taken in the memory order of one map alone (along the angle one element at a
    time, then pairwise over the whole map), so they are the same bits."""
    pol = cv2.warpPolar(cv2.merge(ims), (int(PATCH_R * R_OUT) + 1, N_ANG), (PATCH_R, PATCH_R), PATCH_R * R_OUT + 1,
                        cv2.INTER_LINEAR + cv2.WARP_POLAR_LINEAR)   # rows = angle, cols = radius
    pol = cv2.resize(pol[:, int(PATCH_R * R_IN):], (N_RAD, N_ANG), interpolation=cv2.INTER_LINEAR)
    pol = pol.transpose(2, 0, 1)                                      # (3, angle, radius)
    pol = np.subtract(pol, _means(pol, 1), order="C")                # ring-wise shading drops out
    pol = pol / (np.sqrt(_means(pol * pol, (1, 2))) + 1e-6)
    return np.ascontiguousarray(pol.transpose(0, 2, 1))


def _mean(a):
    """float(a.mean()) of a float32 array, the same bits (its float32 sum over the count in
    double, rounded to float32, as ndarray.mean takes it), without ndarray.mean's overhead."""
    return float(np.float32(float(np.add.reduce(a, axis=None)) / a.size))


def _means(a, axis):
    """a.mean(axis, keepdims=True) of a float32 array, the same bits (as `_mean`)."""
    s = np.add.reduce(a, axis=axis, keepdims=True)
    return np.true_divide(s, np.intp(a.size // s.size), out=s, casting="unsafe")


def _gradients(patch):
    """The patch's Sobel gradients (gx, gy) after the pre-blur: what `features` and `lean` start from."""
    p = cv2.GaussianBlur(patch.astype(np.float32), (0, 0), PRE_BLUR)
    return cv2.Sobel(p, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(p, cv2.CV_32F, 0, 1, ksize=3)


def features(patch):
    """Polar feature stack (3, N_RAD, N_ANG): normalised edge strength, and edge orientation
    relative to the radius (doubled angle: cos and sin parts), both blind to which way the light
    falls and to contrast."""
    return _features(*_gradients(patch))


def features_lean(patch):
    """(`features`, `lean_vector`) of a reader's patch (PATCH_R) from one blur and one pair of
    gradients: what a coin read needs (`FaceModel.read(*features_lean(patch))`)."""
    gx, gy = _gradients(patch)
    return _features(gx, gy), _lean_vector(gx[_FIELD], gy[_FIELD])


def _features(gx, gy):
    # not cv2.magnitude: its last bit varies with where its output buffer happens to lie (IPP's
    # aligned and unaligned paths), so one coin read twice could differ in the last float bit
    mag = np.sqrt(gx * gx + gy * gy)
    local = cv2.GaussianBlur(mag, (0, 0), NORM_BLUR)
    strength = mag / (local + NORM_FLOOR * _mean(mag) + 1e-6)
    jxx = cv2.GaussianBlur(gx * gx, (0, 0), TENSOR_BLUR)
    jyy = cv2.GaussianBlur(gy * gy, (0, 0), TENSOR_BLUR)
    jxy = cv2.GaussianBlur(gx * gy, (0, 0), TENSOR_BLUR)
    energy = jxx + jyy
    norm = cv2.GaussianBlur(energy, (0, 0), NORM_BLUR) + NORM_FLOOR * _mean(energy) + 1e-9
    a, b = (jxx - jyy) / norm, 2 * jxy / norm   # doubled-angle orientation, image axes
    # The coin-wide mean orientation is the light's and the camera's, not the design's: a low lamp
    # shades edges across it and hides those along it, camera shake smears edges along its path,
    # so every edge leans one way. In the coin's own frame that lean is a pattern twice round the
    # coin that any two leaning coins share at some rotation, whatever their faces (issue 12: a
    # heads coin, shaken, matched tails photos taken under a 40 deg lamp). Take it out.
    a = a - _mean(a[_FIELD])
    b = b - _mean(b[_FIELD])
    # turn into the coin's own frame: the angle from the radius is the same at any rotation
    return _polar([strength, a * _COS2 + b * _SIN2, b * _COS2 - a * _SIN2])


def lean(patch):
    """How far the coin's edges lean one way, 0..1 (the field's structure tensor summed: its
    coherence). A relief under a low lamp leans (the edges across the lamp shade, those along it
    vanish), under a high lamp hardly; camera shake leans too. Not a cue: a statement about the
    light, to tell play's from the training photos'."""
    return abs(lean_vector(patch))


def lean_vector(patch):
    """`lean` with its direction: the field's summed structure tensor as a complex number, (Jxx -
    Jyy + 2i Jxy) / (Jxx + Jyy) in image axes (its angle twice the edges' mean orientation)."""
    n = 2 * PATCH_R + 1
    if patch.shape[0] != n:
        patch = cv2.resize(patch, (n, n), interpolation=cv2.INTER_AREA)
    gx, gy = _gradients(patch)
    return _lean_vector(gx[_FIELD], gy[_FIELD])


def _lean_vector(gx, gy):
    """`lean_vector` from the field's gradients."""
    jxx, jyy, jxy = float(gx @ gx), float(gy @ gy), float(gx @ gy)
    return complex(jxx - jyy, 2 * jxy) / (jxx + jyy + 1e-9)


def light_fit(vectors, turns):
    """(design's lean (complex, the first photo's frame), the light's lean (complex, image axes),
    rms misfit) from photos of one face under one lamp: each photo's `lean_vector` = design x
    e^(-2i turn) + light, `turns` (deg) from `_register`; None when the turns do not spread round
    the coin enough to tell the two apart."""
    a = np.stack([np.exp(-2j * np.deg2rad(np.asarray(turns, float))), np.ones(len(turns))], 1)
    if np.linalg.svd(a, compute_uv=False).min() < RELIGHT_SPREAD_MIN * math.sqrt(len(turns)):
        return None
    v = np.asarray(vectors, complex)
    x = np.linalg.lstsq(a, v, rcond=None)[0]
    return complex(x[0]), complex(x[1]), float(np.sqrt(np.mean(np.abs(a @ x - v) ** 2)))


def _spectrum(f):
    return np.fft.rfft(f, axis=-1)


def cue_match(spec_a, templates_spec_conj_ck):
    """Per template, at its best rotation: (combined score, per-cue scores (T, len(CUES)), that
    rotation (the angle bin k: the template turned by -k * 360 / N_ANG deg fits, as `_turn`)).
    `templates_spec_conj_ck`: the templates' spectra conjugated, as (C, K, R, T).

    Scores are normalised correlations (1 = the same coin); a cue's score is its channels' share
    of the combined score, at the rotation that fits all cues best."""
    # sum over radii of A(k) * conj(T(k)), per channel and frequency: one small matrix product
    # per (channel, frequency), (1 x R) @ (R x T), at a quarter of the elementwise product's
    # and sum's cost (BLAS adds in its own order: the scores differ from that sum's in the last
    # float bits only, tests/vision/test_speed_exact.py)
    prod = (spec_a.transpose(0, 2, 1)[:, :, None, :] @ templates_spec_conj_ck)[:, :, 0, :]   # (C, K, T)
    corr = np.fft.irfft(prod.transpose(2, 0, 1), n=N_ANG, axis=-1)                      # (T, C, ang)
    norm = float(spec_a.shape[0] * spec_a.shape[1] * N_ANG)
    total = corr.sum(axis=1)
    best = total.argmax(axis=1)
    at = corr[np.arange(len(corr)), :, best] / norm                        # (T, C)
    return total[np.arange(len(total)), best] / norm, np.add.reduceat(at, _CUE_STARTS, axis=1), best


def best_match(spec_a, templates_spec, norm):
    """Max over rotations of the normalised correlation of one coin with each template."""
    # sum over feature channels and radii of A(k) * conj(T(k)), then back to rotations
    prod = (spec_a[None] * np.conj(templates_spec)).sum(axis=(1, 2))
    corr = np.fft.irfft(prod, n=N_ANG, axis=-1)
    return corr.max(axis=-1) / norm


# Relit templates (docs/VISION.md, "Templates relit from the training photos"): the photos show
# one coin under one fixed lamp at several turns, i.e. under several light azimuths relative to
# the coin. Registered (turned back onto one another) they give, per pixel, how the coin's
# brightness varies with that azimuth; from it the face is drawn lit from any azimuth, and lower.
RELIGHT_R = 2 * PATCH_R     # patch radius the photos are turned back and relit at (turning a coarse patch blurs it)
RELIGHT_TURNS = 12          # light azimuths relative to the coin drawn per face (the ring procedure's clock-hours)
RELIGHT_GAINS = (0.0, 6.0)  # the azimuth-dependent shading x this: 0 = lit from overhead, 6 = a lamp far lower (4 before the nineteenth session)
RELIGHT_SPREAD_MIN = 0.35   # the photos' turns must spread round the coin (design's least singular value / sqrt(n))
REGISTER_ROUNDS = 2         # rounds of matching each photo to its face drawn from the others
REGISTER_STEPS = 64         # lamp azimuths a photo's turn is searched over (then refined between them)
SYMMETRY_TIE = 0.05         # fits this close (relative misfit) are one (`_register_by_shading`)
HALVES_ALL = 13             # photos a face up to which every choice of half turns is tried (2^12 fits)
REGISTER_MOVE = 10.0        # deg: the least change of a photo's turn the shading fit tries (`_ShadingFit.descend`)
MISFIT_RCOND = 1e-12        # the shading fit's D'D, least eigenvalue over its largest, below which it is singular to rounding
SEARCH_STARTS = 24          # random turns a face's shading search starts from besides its registered ones (`_search_turns`)
SEARCH_GRID = 128           # turns a photo may take in the search (2.8 deg apart; then refined between them)
SEARCH_EVIDENCE = 0.85      # the search's best fit must be this share of its starts' median fit or less
SEARCH_PHOTOS_MIN = 8       # photos a face needs to be searched (noise of 4 photos passes SEARCH_EVIDENCE in 6 of 20, of 8 in none)


def _rotation_corr(fa, fb):
    """Correlation of two feature stacks at each of the N_ANG rotations (FFT along the angle)."""
    return np.fft.irfft((_spectrum(fa) * np.conj(_spectrum(fb))).sum(axis=(0, 1)), n=N_ANG)


def _turn(fa, fb, corr=None):
    """(turn in degrees, getRotationMatrix2D's sense, that takes coin b onto coin a; score there);
    `corr`: their `_rotation_corr`, if already at hand."""
    corr = _rotation_corr(fa, fb) if corr is None else corr
    k = int(corr.argmax())
    y0, y1, y2 = corr[k - 1], corr[k], corr[(k + 1) % N_ANG]
    den = y0 - 2 * y1 + y2
    off = 0.5 * (y0 - y2) / den if den < 0 else 0.0   # the peak between two of the 128 angles
    return -(k + off) * 360 / N_ANG, float(corr[k]) / fa.size


def _register(feats, patches):
    """Each photo's turn (deg) relative to the first. First from the photos alone: every pair's
    best turn, chained from the most alike pairs (under a low lamp two photos a few clock-hours
    apart no longer look alike, so a far pair's turn is not trusted), then made consistent. Then
    each photo is matched against its face drawn (from the other photos) under the lamp at every
    turn, where the turn of the drawing and the turn it is matched at must agree. Before and after
    that, the turns are checked against the shading they imply (`_register_by_shading`): a design
    alike at several turns has a peak of its edges' match at each."""
    n = len(feats)
    corrs = [[_rotation_corr(feats[i], feats[j]) if i != j else None for j in range(n)] for i in range(n)]
    pair = [[_turn(feats[i], feats[j], corrs[i][j]) if i != j else (0.0, -1.0) for j in range(n)] for i in range(n)]
    sim = np.array([[pair[i][j][1] + pair[j][i][1] for j in range(n)] for i in range(n)])
    turns, done = np.zeros(n), [0]
    while len(done) < n:   # maximum spanning tree from photo 0
        i, j = max(((i, j) for i in range(n) if i not in done for j in done), key=lambda ij: sim[ij])
        turns[i] = turns[j] + pair[i][j][0]
        done.append(i)
    if n >= 4:   # fewer photos than the shading basis's 3 terms + 1 leave it no misfit to judge by
        fit = _ShadingFit(patches)
        peaks = [[_turn_peaks(corrs[i][j], 3) if i != j else [] for j in range(n)] for i in range(n)]
        turns = shaded = _register_by_shading(fit, peaks, turns, fit.built(pair, peaks))
    for _ in range(REGISTER_ROUNDS):
        turns = np.array([_turn_by_drawing(feats[i], [p for j, p in enumerate(patches) if j != i],
                                           np.delete(turns, i)) for i in range(n)])
    # the drawings match edges, which a near-symmetric design leaves ambiguous: where they moved a
    # photo so that the shading fits clearly worse, the shading's turns stand
    if n >= 4:
        turns = fit.spread_halves(turns)
        drawn, before = (fit.misfit(t, fit.gram(range(n), t)) for t in (turns, shaded))
        if drawn > (1 + SYMMETRY_TIE) * before:
            turns = shaded
    return (turns - turns[0] + 180) % 360 - 180


def _turn_peaks(corr, k):
    """The `k` best turns (deg, as `_turn`) that take coin b onto coin a: the highest local peaks of
    their `_rotation_corr` (a design with a near-symmetry has a peak at each of its turns)."""
    local = (corr >= np.roll(corr, 1)) & (corr >= np.roll(corr, -1))
    return [-i * 360 / N_ANG for i in np.argsort(-corr) if local[i]][:k]


class _ShadingFit:
    """How well one shading basis (`shading_basis`) explains a face's photos at given turns: the
    least squares misfit, from the Gram matrix of the photos turned back (cached per photo and
    turn), so a turn tried costs one row of dot products."""

    def __init__(self, patches):
        self.patches = patches
        self.disc = _disc(patches[0].shape[0])
        self.cache = {}

    def turned(self, i, t):
        """Photo `i` turned back by `t` deg over the coin's field, as `shading_basis` takes it."""
        key = (i, round(float(t) % 360, 2))
        if key not in self.cache:
            self.cache[key] = _turned_back(self.patches[i], key[1], self.disc)[self.disc]
        return self.cache[key]

    def gram(self, idx, turns):
        ims = np.array([self.turned(i, t) for i, t in zip(idx, turns)])
        return ims @ ims.T

    @staticmethod
    def misfit(turns, gram):
        """sum |(I - P) x|^2 = trace(G) - trace((D'D)^-1 D'GD): P projects on the design D (1, cos,
        sin of -turn). Batched: `turns` (..., n) and `gram` (..., n, n) give (...) misfits."""
        design = _design(turns)
        dt = np.swapaxes(design, -1, -2)
        dtd, rhs = dt @ design, dt @ gram @ design
        # turns crowded together leave D'D singular, or nearly so: the fit there projects on what
        # the turns can tell (the pseudo-inverse), not on rounding noise (solve raised, or gave
        # misfits far below zero that a registration then preferred: sealed-15's ring 4080481716)
        eig = np.linalg.eigvalsh(dtd)
        crowded = eig[..., 0] < MISFIT_RCOND * eig[..., -1]
        if not crowded.any():
            fitted = np.linalg.solve(dtd, rhs)
        else:   # (a 0-d mask indexes a single fit as a batch of one or none)
            fitted = np.empty_like(rhs)
            fitted[~crowded] = np.linalg.solve(dtd[~crowded], rhs[~crowded])
            fitted[crowded] = np.linalg.pinv(dtd[crowded], rcond=MISFIT_RCOND, hermitian=True) @ rhs[crowded]
        # (photos the fit explains whole leave rounding either side of zero)
        return np.maximum(np.trace(gram, axis1=-2, axis2=-1) - np.trace(fitted, axis1=-2, axis2=-1), 0.0)

    def moved(self, turns, gram, i, t):
        """(turns, Gram matrix, misfit) with photo `i` at turn `t`: one row and column recomputed."""
        turns = turns.copy()
        turns[i] = t
        gram = gram.copy()
        gram[i, :] = gram[:, i] = np.array([self.turned(j, turns[j]) for j in range(len(turns))]) @ self.turned(i, t)
        return turns, gram, float(self.misfit(turns, gram))

    def descend(self, turns, peaks):
        """(misfit, turns): each photo's turn changed, one at a time, to another photo's turn plus
        one of the best turns between the two where that fits better, until none does; `turns`
        as they were unless all that fits clearly better (SYMMETRY_TIE). Only moves of
        REGISTER_MOVE or more are tried: this mends a wrong peak; the drawings refine."""
        n = len(turns)
        begin = turns = np.array(turns, float)
        gram = self.gram(range(n), turns)
        start = now = float(self.misfit(turns, gram))
        for _ in range(n):
            changed = False
            for i in range(n):
                for c in {round(float(turns[j] + p) % 360, 1) for j in range(n) if j != i for p in peaks[i][j]}:
                    if abs((c - turns[i] + 180) % 360 - 180) < REGISTER_MOVE:
                        continue
                    trial, g, got = self.moved(turns, gram, i, c)
                    if got < now * (1 - 1e-6):
                        turns, gram, now, changed = trial, g, got, True
            if not changed:
                break
        # the shading's model is first order (a low lamp's clipped shadows are not in it): moves
        # that only fit it a little better are no evidence of a wrong peak
        return (now, turns) if now < start * (1 - SYMMETRY_TIE) else (start, np.array(begin, float))

    def refined(self, turns, which, step=1.4, least=0.2):
        """`turns` of the photos `which` (a peak's turn taken, on the correlation's 2.8 deg bins)
        each moved by a fraction of a bin where the shading fits better (a pattern search, the step
        halved down to `least` deg); the others' turns were refined between bins already."""
        n = len(turns)
        turns = np.array(turns, float)
        gram = self.gram(range(n), turns)
        now = float(self.misfit(turns, gram))
        while step >= least:
            for i in np.flatnonzero(which):
                for d in (-step, step):
                    trial, g, got = self.moved(turns, gram, i, turns[i] + d)
                    if got < now:
                        turns, gram, now = trial, g, got
            step /= 2
        return turns

    def spread_halves(self, turns):
        """`turns` with some photos' turns taken half a turn on, where that fits as well and spreads
        them round the coin more. A design alike at a half turn is alike in its shading too (its
        slopes reversed there, as the lamp's half turn reverses them): a photo at its turn or half a
        turn on is one fit, and only the spread of the turns (which conditions the fit, `_spread`)
        chooses. Every choice of each photo's turn or its half turn is tried (2^(n-1) fits over the
        Gram matrix of both); of those within SYMMETRY_TIE of the best fit, the most spread is taken."""
        n = len(turns)
        both = self.gram(list(range(n)) * 2, np.concatenate([turns, turns + 180.0]))
        if n > HALVES_ALL:   # more photos than the procedure's: each photo's half turn alone
            pick = np.vstack([np.zeros(n, int), np.eye(n, dtype=int)[1:]])
        else:
            pick = (np.arange(2 ** (n - 1))[:, None] >> np.arange(-1, n - 1).clip(0)) & 1   # (choices, n)
            pick[:, 0] = 0
        sel = np.arange(n) + n * pick
        trials = turns + 180.0 * pick
        misfits = self.misfit(trials, both[sel[:, :, None], sel[:, None, :]])
        return max(trials[misfits <= misfits.min() * (1 + SYMMETRY_TIE)], key=_spread)

    def built(self, pair, peaks):
        """Turns from the photos added one at a time, the most alike to those placed first, each at
        the candidate (a placed photo's turn plus a best turn between the two) that fits the shading
        of those placed best; the first three (too few to fit) at their best edge match (`pair`:
        `_turn` of every two photos)."""
        n = len(pair)
        placed, turns = [0], [0.0]
        while len(placed) < n:
            best = None
            for i in (i for i in range(n) if i not in placed):
                for m, j in enumerate(placed):
                    t, score = pair[i][j]
                    if len(placed) < 3:
                        cands = [(-score, round(float(turns[m] + t) % 360, 1))]
                    else:
                        cands = [(float(self.misfit(turns + [c], self.gram(placed + [i], turns + [c]))), c)
                                 for c in (round(float(turns[m] + p) % 360, 1) for p in peaks[i][j])]
                    for f, c in cands:
                        if best is None or f < best[0]:
                            best = (f, i, c)
            placed.append(best[1])
            turns.append(best[2])
        out = np.zeros(n)
        out[placed] = turns
        return out


def _register_by_shading(fit, peaks, tree, built):
    """The photos' turns that fit one shading basis best: the edges' spanning tree's (`tree`) or
    those built up photo by photo by the shading (`built`), each improved one photo at a time
    (`_ShadingFit.descend`); the tree's unless the other fits clearly better (SYMMETRY_TIE). A
    design that looks alike at several turns (a colour wheel's wedges a third of a turn apart, a
    checkerboard half a turn, sealed-21) gives its edge features a peak at each, and under the
    training lamp only the shading, which turns with the coin, tells them apart: a wrong turn
    there crowded the photos' turns into part of the circle and left the face without relit
    templates."""
    (m_tree, turns), (m_built, other) = fit.descend(tree, peaks), fit.descend(built, peaks)
    if m_built * (1 + SYMMETRY_TIE) < m_tree:
        turns = other
    return fit.spread_halves(fit.refined(turns, np.abs((turns - tree + 180) % 360 - 180) > 1e-6))


def _search_turns(patches, turns):
    """Turns (deg, as `_register`) for a face whose registered `turns` do not spread round the coin
    enough to draw it (`_spread`): those of the least shading misfit (`_ShadingFit`) found from the
    registered turns and SEARCH_STARTS random ones (a fixed seed: one face, one answer), each photo
    moved in turn to the grid turn that fits best until none moves, then refined between grid
    turns (which may still not spread: `shading_basis` refuses them then). None with fewer than
    SEARCH_PHOTOS_MIN photos, or when the best fits not clearly better than the starts' median
    (SEARCH_EVIDENCE).

    A face that looks alike at every turn (sealed-50's tails: one round cell filling the field)
    shows its turn in its photos only faintly: each pair of photos matches best near no turn at
    all, and the turns registered crowd together. The shading over all the photos still tells
    them, but only from near them: a photo moved alone from the crowd fits worse, so the
    registration's own descent stays there, and the search starts from afar too (docs/VISION.md,
    "A face alike at every turn"). Faces whose turns register are not searched."""
    n = len(patches)
    if n < SEARCH_PHOTOS_MIN:
        return None
    grid = np.arange(SEARCH_GRID) * 360.0 / SEARCH_GRID
    rng = np.random.default_rng(0)
    starts = [np.round(np.asarray(turns, float) / 360 * SEARCH_GRID).astype(int) % SEARCH_GRID]
    starts += [np.r_[0, rng.integers(0, SEARCH_GRID, n - 1)] for _ in range(SEARCH_STARTS)]
    disc = _disc(patches[0].shape[0])
    stack = np.array([[_turned_back(p, t, disc)[disc] for t in grid] for p in patches])   # (n, grid, px)
    # two photos turned alike by the same turn keep their dot product (up to the interpolation of
    # the one turned, which costs the grid's fits a little against `refined`'s: the evidence below
    # compares grid fits alone): every pair at every turn apart, from each photo at every turn
    # against the others unturned
    cross = np.einsum("igp,jp->igj", stack, stack[:, 0])
    ends = [_grid_descent(cross, k) for k in starts]
    got = np.array([float(_ShadingFit.misfit(grid[k], _grid_gram(cross, k))) for k in ends])
    # photos whose shading tells nothing of their turns (noise) end about as well fitted from any
    # start; a face's own shading ends some starts far better. Photos all alike fit every turn
    # whole (misfit 0): nothing told either
    if not got.min() <= SEARCH_EVIDENCE * np.median(got) or np.median(got) <= 0:
        return None
    found = _ShadingFit(patches).refined(grid[ends[int(got.argmin())]], np.ones(n, bool))
    return (found - found[0] + 180) % 360 - 180


def _grid_gram(cross, k):
    """Gram matrix of the photos turned back by grid turns `k` (`cross[i, d, j]`: photo i turned d
    grid steps further than photo j, dotted with it)."""
    n = len(k)
    return cross[np.arange(n)[:, None], (k[:, None] - k[None, :]) % cross.shape[1], np.arange(n)[None, :]]


def _grid_descent(cross, k):
    """Grid turns `k` (one per photo) moved, one photo at a time, to the grid turn of the least
    shading misfit, until none moves (`_search_turns`)."""
    n, m = len(k), cross.shape[1]
    grid = np.arange(m) * 360.0 / m
    k = np.array(k)
    gram = _grid_gram(cross, k)
    now = float(_ShadingFit.misfit(grid[k], gram))
    steps = np.arange(m)
    for _ in range(4 * n):   # each sweep tries every photo once; a bound, as the misfit only falls
        moved = False
        for i in range(n):
            rows = cross[i][(steps[:, None] - k[None, :]) % m, np.arange(n)[None, :]]   # (grid, n)
            grams = np.repeat(gram[None], m, 0)
            grams[:, i, :] = rows
            grams[:, :, i] = rows
            grams[:, i, i] = cross[i, 0, i]
            trial = np.repeat(k[None], m, 0)
            trial[:, i] = steps
            got = _ShadingFit.misfit(grid[trial], grams)
            j = int(got.argmin())
            if got[j] < now * (1 - 1e-6):
                k, gram, now, moved = trial[j], grams[j], float(got[j]), True
        if not moved:
            break
    return k


def _spread(turns):
    """How well photos at `turns` spread round the coin for the shading fit: the least singular
    value of its design (1, cos, sin of each turn) over sqrt(photos) (RELIGHT_SPREAD_MIN at least)."""
    return float(np.linalg.svd(_design(turns), compute_uv=False).min() / math.sqrt(len(turns)))


def _turn_by_drawing(feat, patches, turns):
    """The turn of a photo (feature stack `feat`) that its face, drawn from other photos with
    known turns under the lamp at that same turn, fits best."""
    basis = shading_basis(patches, turns)
    if basis is None:
        return float(_turn(feat, features(cv2.resize(patches[0], (2 * PATCH_R + 1,) * 2,
                                                           interpolation=cv2.INTER_AREA)))[0] + turns[0])
    size = 2 * PATCH_R + 1
    k = np.arange(REGISTER_STEPS)
    psi = k * 2 * np.pi / REGISTER_STEPS
    score = []
    for p in psi:
        im = basis[0] + basis[1] * math.cos(p) + basis[2] * math.sin(p)
        f = features(cv2.resize(im.astype(np.float32), (size, size), interpolation=cv2.INTER_AREA))
        corr = _rotation_corr(feat, f)
        # drawn under the lamp at psi = -turn; matched at that turn: index = -turn * N_ANG / 360
        score.append(np.interp(p * N_ANG / (2 * np.pi), np.arange(N_ANG + 1), np.append(corr, corr[0])))
    score = np.array(score)
    b = int(score.argmax())
    y0, y1, y2 = score[b - 1], score[b], score[(b + 1) % len(score)]
    den = y0 - 2 * y1 + y2
    off = 0.5 * (y0 - y2) / den if den < 0 else 0.0
    return float(-np.rad2deg((b + off) * 2 * np.pi / REGISTER_STEPS))


def _design(turns):
    """(..., n, 3) design of the shading fit: 1, cos, sin of each photo's lamp azimuth relative to
    the coin, psi = -turn."""
    psi = np.deg2rad(-np.asarray(turns, float))
    return np.stack([np.ones_like(psi), np.cos(psi), np.sin(psi)], -1)


def _disc(n):
    """The coin's field in an n x n patch, as the shading fit takes it (0.9 of its radius)."""
    r = (n - 1) / 2
    yy, xx = np.mgrid[0:n, 0:n] - r
    return (xx * xx + yy * yy) <= (0.9 * r) ** 2


def _turned_back(patch, turn, disc):
    """`patch` turned back by `turn` deg, standardised over `disc` (exposure and vignetting drop out)."""
    n = patch.shape[0]
    r = (n - 1) / 2
    q = cv2.warpAffine(patch.astype(np.float32), cv2.getRotationMatrix2D((r, r), -float(turn), 1.0), (n, n),
                       flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    v = q[disc]
    return (q - v.mean()) / (v.std() + 1e-6)


def shading_basis(patches, turns):
    """(3, n, n) images A, B, C with brightness = A + B cos(psi) + C sin(psi) at each pixel of
    the coin turned back to the first photo, psi the light's azimuth relative to the coin (minus
    each photo's turn); None when the photos' turns do not spread round the coin enough to tell."""
    n = patches[0].shape[0]
    if _spread(turns) < RELIGHT_SPREAD_MIN:
        return None
    disc = _disc(n)
    ims = [_turned_back(p, t, disc).ravel() for p, t in zip(patches, turns)]
    coef = np.linalg.lstsq(_design(turns), np.array(ims), rcond=None)[0]
    return coef.reshape(3, n, n)


def relit_features(basis):
    """Feature stacks of the face drawn from its shading basis under RELIGHT_TURNS azimuths at
    each of RELIGHT_GAINS (gain 0 is one picture: the azimuth's shading averaged out)."""
    size = 2 * PATCH_R + 1
    out = []
    for g in RELIGHT_GAINS:
        for psi in np.arange(RELIGHT_TURNS if g else 1) * 2 * np.pi / RELIGHT_TURNS:
            im = basis[0] + g * (basis[1] * math.cos(psi) + basis[2] * math.sin(psi))
            im = cv2.resize(im.astype(np.float32), (size, size), interpolation=cv2.INTER_AREA)
            out.append(features(cv2.normalize(im, None, 0, 255, cv2.NORM_MINMAX)))
    return out


def relit_templates(big_patches, turns):
    """Relit feature stacks of one face from its photos' RELIGHT_R patches and turns (_register);
    [] when the photos' turns do not spread round the coin."""
    basis = shading_basis(big_patches, turns)
    return [] if basis is None else relit_features(basis)


def _cues_agree(families, sign, min_margin, edge_silent=False):
    """Whether within some family (`_pairs`' entries after the first) the face `sign` favours
    (1 heads, -1 tails) wins by `min_margin` with each cue carrying its part of that margin
    (`FaceModel.read`); `edge_silent`: or with the orientation cue carrying `min_margin` on its own
    and edge strength against it by at most EDGE_SILENT. In numpy scalars and Python floats: each
    cue's float32 difference, compared in double, as the arrays' expression compares them."""
    return any((fh - ft) * sign >= min_margin
               and (all(float((c - d) * sign) >= share * (fh - ft) * sign for c, d, share in zip(ch, ct, _CUE_NEED))
                    or edge_silent and float((ch[1] - ct[1]) * sign) >= min_margin
                    and float((ch[0] - ct[0]) * sign) >= -EDGE_SILENT)
               for fh, ft, ch, ct, _, _ in families)


class FaceModel:
    """Templates of both faces, coin colour and size, and the decision thresholds. The first
    `n_photos` templates are the training photos; any after them are the faces relit from them."""

    def __init__(self, templates, labels, chroma, radius_ratio, min_score, min_margin, report, n_photos=None):
        self.templates = np.asarray(templates, np.float32)
        self.labels = list(labels)
        self.chroma = tuple(chroma)
        self.radius_ratio = float(radius_ratio)
        self.min_score = float(min_score)
        self.min_margin = float(min_margin)
        self.report = dict(report)
        self.n_photos = len(self.labels) if n_photos is None else int(n_photos)
        self._spec = _spectrum(self.templates)
        # every read correlates with these (channel and frequency first: cue_match)
        self._spec_conj_ck = np.ascontiguousarray(np.conj(self._spec).transpose(1, 3, 2, 0))
        self._norm = float(self.templates[0].size)
        self._lab = np.array([1 if l == "heads" else 0 for l in self.labels])
        photo = np.arange(len(self.labels)) < self.n_photos
        # template families, each one consistent picture of both faces: the photos under the
        # training lamp, and the relit drawings (if any)
        self._families = [photo] + ([~photo] if (~photo).any() else [])
        # per family (all templates first), the templates of heads and of tails, a row each: a read
        # picks the best of each row at once (the first template when a family holds none of a
        # face: argmax over -inf)
        self._picks = np.array([(self._lab == face) & fam for fam in [np.ones(len(self.labels), bool)] + self._families
                                for face in (1, 0)])

    def _pairs(self, feat):
        """[(heads score, tails score, heads per-cue scores, tails per-cue scores, heads template,
        tails template)] of the best template of each face: over all templates first, then within
        each family; and each template's best rotation (`cue_match`)."""
        total, cues, rot = cue_match(_spectrum(feat), self._spec_conj_ck)
        best = np.where(self._picks, total, -np.inf).argmax(axis=1).tolist()
        return [(float(total[ih]), float(total[it]), cues[ih], cues[it], ih, it)
                for ih, it in zip(best[::2], best[1::2])], rot

    def _match(self, feat):
        """(heads score, tails score, heads per-cue scores, tails per-cue scores) of the best
        template of each face."""
        return self._pairs(feat)[0][0][:4]

    def scores(self, feat):
        """(best heads score, best tails score) for a feature stack."""
        return self._match(feat)[:2]

    def read(self, feat, coin_lean=None, weigh_low=True):
        """(face or None, confidence 0..1, heads score, tails score); `coin_lean`: the coin's
        `lean_vector`, which raises the margin needed when its lamp is higher than the training
        photos' (`lamp`, `light_leans`).

        A face is read when its best match scores at least `min_score` and beats the other face's
        by `min_margin`, over all templates, and within one family of templates (the photos, or
        the relit drawings) the face's best also beats the other's by `min_margin` with every cue
        (edge strength, edge orientation) on its own favouring it, by at least CUE_SHARE_MIN of
        its share of that margin: where a cue disagrees or says nothing the coin does not look
        like either face, whatever the total says (a relief whose fine design the light has
        washed out), and the boxer calls it.

        A coin so left unread whose lamp is clearly lower than the photos' (`lamp`: "lower" for
        both faces, measured by the best pair over all templates and by the drawings' own pair) is
        weighed once more within the relit drawings alone, by the same floor and margin: the
        photos show both faces under another light, and a photo of the other face that matches
        such a coin by chance about as well as the floor (0.26-0.30 against the drawings' 0.31-0.36,
        sealed-43) only narrowed the margin over all. There edge strength may say nothing (within
        EDGE_SILENT) where edge orientation carries the margin on its own: a low lamp's shading
        changes a relief's edge strength most. The face so read must be the one that leads over all
        templates too; the scores returned are then the drawings'. `weigh_low` False: the
        first weighing only (what must look like a face before it is taken for a coin at all)."""
        ((h, t, _, _, ih, it), *families), rot = self._pairs(feat)
        face, conf = self._decide(h, t, (ih, it), families, rot, coin_lean)
        if face is None and weigh_low and coin_lean is not None and len(families) > 1 \
                and self._lower(coin_lean, (ih, it), rot) and self._lower(coin_lean, families[1][4:], rot):
            rh, rt, _, _, rih, rit = families[1]
            # _decide measures the light by the same pair as _lower just did: "lower" for both
            # faces, so the margin it asks (`need`) is `min_margin`, which EDGE_SILENT's
            # orientation-alone test asks too
            relit = self._decide(rh, rt, (rih, rit), families[1:], rot, coin_lean, edge_silent=True)
            if relit[0] is not None and (rh > rt) == (h > t):
                return relit + (rh, rt)
        return face, conf, h, t

    def _decide(self, h, t, picked, families, rot, coin_lean, edge_silent=False):
        """(face or None, confidence) of `read` for the best pair (`h`, `t` the scores of the
        templates `picked`) and the families whose cues may carry the margin (`edge_silent`: as
        `_cues_agree` has it)."""
        best, other = max(h, t), min(h, t)
        margin = best - other
        need = self.min_margin
        if coin_lean is not None:
            # the coin's light as either face would have it: if it is the face that scores less,
            # its light is the one measured right, and a higher lamp there is what misreads
            light = self.light_leans(coin_lean, picked, rot)
            need = max(self.lamp(light[f], f)[0] for f in ("heads", "tails"))
            lead = "heads" if h > t else "tails"
            if "lean" in self.report and self.lamp(light[lead], lead)[1] != "lower":
                # and the coin's whole lean, as the face it would be read as leaned, unless its light
                # is clearly lower than the photos': a shaken coin under a higher lamp can measure
                # more light than it has where its turn is taken from the face it is not (a relief
                # model trained 40 deg high: heads lit 87 deg, shaken, led by tails by 0.150)
                need = max(need, self._lamp(abs(coin_lean), self.report["lean"][lead][1])[0])
        sign = 1 if h > t else -1
        # each cue must carry a part of the margin in proportion to its channels: a cue that
        # tells the faces apart by nothing is no support (a washed-out relief's edge strength)
        agree = _cues_agree(families, sign, self.min_margin, edge_silent)
        face = ("heads" if h > t else "tails") if best >= self.min_score and margin >= need and agree else None
        conf = min(max(min(best / max(self.min_score, 1e-6), margin / max(need, 1e-6)) / 2, 0.0), 1.0)
        return face, (conf if agree else min(conf, 0.25))

    def _lower(self, coin_lean, picked, rot):
        """Whether a coin's light, measured by the templates `picked` (heads, tails), is lower than
        the training photos' for both faces (`lamp`)."""
        light = self.light_leans(coin_lean, picked, rot)
        return all(self.lamp(light[f], f)[1] == "lower" for f in ("heads", "tails"))

    def light_leans(self, coin_lean, picked, rot):
        """{face: how far the light leans the coin's edges, as `lamp` compares it with the training
        photos'}. With the photos' light fit (`light_fit`, report "light_lean"): the coin's
        `lean_vector` less the face's design lean turned to where the face's best template fits
        it (`picked`: the (heads, tails) templates, `rot`: each template's best rotation, as
        `_pairs` gives them); without one, the coin's `lean`."""
        fit = self.report.get("light_lean")
        if not fit:
            return {f: abs(coin_lean) for f in ("heads", "tails")}
        out = {}
        for f, i in zip(("heads", "tails"), picked):
            turn = self.report["template_turns"][i] - int(rot[i]) * 360 / N_ANG
            design = complex(*fit[f]["design"])
            out[f] = abs(coin_lean - design * complex(np.exp(-2j * np.deg2rad(turn))))
        return out

    def coin_light(self, feat, coin_lean):
        """`light_leans` of a coin from its `features_lean`, its best templates matched afresh."""
        pairs, rot = self._pairs(feat)
        return self.light_leans(coin_lean, pairs[0][4:], rot)

    def lamp(self, light, face):
        """How a coin's light compares with that of the training photos of `face` (the face it
        would be read as), from how its edges lean (`light_leans`): (the margin that face must win
        by, "higher" | "lower" | "" (alike))."""
        if "lean" not in self.report:   # a model made in code, not trained
            return self.min_margin, ""
        fit = self.report.get("light_lean")
        return self._lamp(light, fit[face]["light"] if fit else self.report["lean"][face][1])

    def _lamp(self, light, med):
        """`lamp` against the photos' lean `med`."""
        if light < min(LEAN_HIGHER * med, med - LEAN_GAP):
            t = min(1.0, (LEAN_HIGHER * med - light) / ((LEAN_HIGHER - LEAN_FAR) * med))
            return self.min_margin + t * max(0.0, HIGHER_LAMP_MARGIN - self.min_margin), "higher"
        return self.min_margin, ("lower" if light > LEAN_LOWER * med + LEAN_GAP else "")

    def light_note(self, patch):
        """Why a coin was left unread, when its light is unlike the training photos' (`lamp`): the
        problem and the fix, to follow "cannot read a coin's face"; "" when its light is alike."""
        light = self.coin_light(*features_lean(patch))
        ways = {self.lamp(light[f], f)[1] for f in ("heads", "tails")}
        way = "higher" if ways == {"higher"} else "lower" if ways == {"lower"} else ""
        if not way:
            return ""
        return (f": it is lit unlike the face model's training photos (a lamp {way} than theirs: moved or "
                "replaced?): train the face model again in this ring under its own lights (ring vision train)")

    def to_dict(self):
        return {"kind": "ringctl.vision.FaceModel", "version": FEATURES_VERSION, "labels": self.labels,
                "chroma": list(self.chroma), "radius_ratio": self.radius_ratio,
                "min_score": self.min_score, "min_margin": self.min_margin, "report": self.report,
                "n_photos": self.n_photos, "shape": list(self.templates.shape),
                # float16 is ample for unit-variance features and keeps the file ~300 kB
                "templates_f16": base64.b64encode(self.templates.astype("<f2").tobytes()).decode("ascii")}

    def save(self, path):
        with open(path, "w") as f:
            json.dump(self.to_dict(), f)

    @classmethod
    def load(cls, path):
        try:
            with open(path) as f:
                d = json.load(f)
        except OSError as exc:
            raise UserError(f"cannot read face model {path} ({exc.strerror}); "
                            "make one with 'ring vision train --heads DIR --tails DIR --ring RING.json -o MODEL'")
        except ValueError as exc:
            raise UserError(f"face model {path} is not JSON ({exc}); make one with 'ring vision train'")
        try:
            if d.get("kind") != "ringctl.vision.FaceModel":
                raise KeyError("kind")
            if d.get("version") != FEATURES_VERSION:
                raise UserError(f"face model {path} was made by an older version of the face reader "
                                f"(version {d.get('version')}, now {FEATURES_VERSION}); train it again from the "
                                "same photos with 'ring vision train'")
            if "templates_f16" in d:
                raw = base64.b64decode(d["templates_f16"])
                t = np.frombuffer(raw, "<f2").astype(np.float32).reshape(d["shape"])
            else:
                t = np.array(d["templates"], np.float32).reshape(d["shape"])
            return cls(t, d["labels"], d["chroma"], d["radius_ratio"], d["min_score"], d["min_margin"],
                       d.get("report", {}), d["n_photos"])
        except (KeyError, ValueError, TypeError, AttributeError, binascii.Error) as exc:
            raise UserError(f"{path} is not a face model (bad field {exc}); make one with 'ring vision train'")


class TrainingPhotoError(UserError):
    """A refused training photo; `image` and `found` (a classify-shaped dict of what was
    found) let the caller write an annotated picture (vision.annotate)."""

    def __init__(self, name, why, image, found, clipped=False, finder=None):
        super().__init__(f"training photo {name}: {why}")
        self.name = name
        self.why = why
        self.image = image
        self.found = found
        self.clipped = clipped   # the coin at the camera's limit (CLIPPED): the exposure is the fix
        # the coin finder's outline where it disagreed with the circle of the calibrated size: a
        # calibration off in scale makes every photo so (`train` checks the scale on them first)
        self.finder = finder


def _found(ring, coins, others, why):
    return {"result": "unsure", "reasons": [f"training photo refused: {why}"], "coins": coins, "others": others,
            "ring": {"center": list(ring.center), "axes": list(ring.axes), "angle_deg": ring.angle_deg}}


def training_coin(img, ring, name, empty=None):
    """The one coin lying flat in a training photo -> Blob; TrainingPhotoError if not.

    Two measurements: the coin finder's (`detect.find_blobs`: a clean round outline, whatever its
    size) and the circle of the calibrated coin size (`_coin_of_size`, which knows what play does
    not: one coin, its size, the empty ring). A coin lying across print of its own colour often
    stands out only in part, and the finder then finds a piece, two pieces or a shape no circle
    fits; the circle of its size still lies on its rim. The finder's outline is taken when the
    two agree (or no circle of the coin's size is found: a plain layout's coin the finder
    measures), the circle when only it finds the coin; a photo where they disagree, or where
    something else lies in the ring, is refused, and so is one where neither finds it.

    With `empty` (the calibration's full-resolution photo of the empty ring, same camera) print
    can be told from the coin: where the two measurements disagree, the one with nothing of the
    coin's colour beyond it (`_beyond`: the other cuts into the coin, e.g. the circle through its
    drop shadow's edge) is taken; where neither found the coin, it is looked for against the empty
    ring at full resolution (`_coin_against_empty`)."""
    return _coin_inside(img, ring, name, None if empty is None else _Frame(empty))


def _coin_inside(img, ring, name, empty):
    """`training_coin`, the empty ring's photo (if any) a _Frame: training low-passes it once for
    all its photos."""
    b = _training_coin(img, ring, name, empty)
    out = float(np.hypot(*np.subtract(b.plane_center, ring.center))) + b.axes[0] - ring.radius
    if out > max(1.0, ring.edge_px):
        why = (f"the coin is not wholly inside the ring (its edge {out:.0f} px over the layout's edge): lay it well "
               "inside the ring and retake")
        raise TrainingPhotoError(name, why, img, _found(ring, [_entry(b, ring, inside=False)], [], why))
    return b


def clipped_share(img, ring, b):
    """The share of the coin's face (inside the rim, R_OUT) where a colour channel is at the
    camera's limit (CLIP_LEVEL)."""
    inv = cv2.invertAffineTransform(ring.to_plane)
    cx, cy = inv[:, :2] @ np.asarray(b.plane_center, float) + inv[:, 2]
    r = R_OUT * b.axes[0] * math.sqrt(abs(np.linalg.det(inv[:, :2])))
    x0, y0 = max(0, int(cx - r)), max(0, int(cy - r))
    crop = img[y0:max(y0, int(cy + r) + 2), x0:max(x0, int(cx + r) + 2)]
    yy, xx = np.mgrid[y0:y0 + crop.shape[0], x0:x0 + crop.shape[1]]
    face = (xx - cx) ** 2 + (yy - cy) ** 2 <= r * r
    if not face.any():
        return 0.0
    return float((crop[face].max(axis=-1) >= CLIP_LEVEL).mean())


def _training_coin(img, ring, name, empty):
    ring.check_frame(img)
    if empty is not None and empty.img.shape != img.shape:
        raise UserError(f"the empty ring's photo is {empty.img.shape[1]}x{empty.img.shape[0]} px but training photo {name} "
                        f"is {img.shape[1]}x{img.shape[0]}: give the calibration's photo from the same camera")
    blobs = detect.find_blobs(img, ring, min_area_coins=0.1, measure_max_coins=4.0)
    known = _coin_of_size(img, ring)
    photo = _Frame(img)
    try:
        b = _coin_by_outline(img, ring, name, blobs)
    except TrainingPhotoError as exc:
        if known is None and empty is not None:
            got = _coin_against_empty(photo, ring, empty)
            if got["blob"] is None:
                raise TrainingPhotoError(name, f"{exc.args[0].split(': ', 1)[1]}; against the empty ring's photo: "
                                         f"{got['why']}", img, exc.found)
            known = got
        elif known is None:
            raise
        # the pieces of the coin that stand out lie on it; anything else in the ring is not it
        c = np.array(known["blob"].plane_center)
        far = [o for o in blobs if o.area_coins > SIZE_ELSEWHERE and
               (float(np.hypot(*(_seen_at(o, ring) - np.array(ring.center)))) < ring.radius or
                o.extra.get("in_ring_coins", 0) > 0.2) and
               float(np.hypot(*(_seen_at(o, ring) - c))) > 1.3 * ring.coin_radius_px]
        if far:
            raise
        return _off_shadow(photo, ring, empty, known["blob"]) if empty is not None else known["blob"]
    if known is not None:
        k = known["blob"]
        off = float(np.hypot(*np.subtract(b.plane_center, k.plane_center)))
        if off > SIZE_AGREE * ring.coin_radius_px:
            if empty is not None:
                sb = _beyond(photo, ring, empty, b.plane_center, b.axes[0])[0]
                sk = _beyond(photo, ring, empty, k.plane_center, k.axes[0])[0]
                b.extra["beyond"], k.extra["beyond"] = round(sb, 3), round(sk, 3)
                if sb <= BEYOND_MAX and sk >= sb + BEYOND_MARGIN and abs(b.axes[0] / k.axes[0] - 1) <= SIZE_AGREE_R:
                    return b   # the circle of the coin's size cut into the coin (its shadow's edge)
                if sk <= BEYOND_MAX and sb >= sk + BEYOND_MARGIN:
                    return _off_shadow(photo, ring, empty, k)   # the finder's outline took in something beside the coin
            why = (f"two measurements of the coin's outline disagree by {off:.0f} px (the coin finder's and the "
                   f"circle of the calibrated size, {2 * ring.coin_radius_px:.0f} px): lay it on a plain part of "
                   "the layout and retake")
            raise TrainingPhotoError(name, why, img, _found(ring, [_entry(b, ring), _entry(k, ring)], [], why),
                                     finder=b)
        if abs(b.axes[0] / k.axes[0] - 1) > SIZE_AGREE_R:
            # the finder's outline took in print (edge-tune: up to 11% too big; the circle's 1%),
            # or the calibration's size is wrong: its measure is kept for `check_scale`
            k.extra["finder_r"] = float(b.axes[0])
            return k
    return b


def _seen_at(b, ring):
    """Where an object stands out, ring-plane px (the middle of what differs, not a fitted outline:
    a piece of a coin lies on that coin whatever outline it was given)."""
    m = ring.to_plane
    return m[:, :2] @ np.array(b.center) + m[:, 2]


def _entry(b, ring, **kw):
    x, y = detect.seen_center(b, ring)
    return dict({"center": [round(x, 1), round(y, 1)], "radius": round(b.axes[0], 1),
                 "face": None, "flat": True, "inside": True, "confidence": 0.0}, **kw)


def _coin_of_size(img, ring):
    """The circle of the calibrated coin size in a training photo (SIZE_*): {"blob": a Blob of it,
    "support": share of its arcs with an edge on it}, or None when no such circle has edges round SIZE_SUPPORT of it (no coin of that
    size, a tilted coin, a wrong calibration)."""
    r = ring.coin_radius_px
    f = ring.factor
    # where the frame differs most from the empty ring, a coin-sized disc with nothing round it
    d = detect.diff_image(ring.small(img), ring.background)
    inside = cv2.erode(detect.ring_mask(ring), np.ones((3, 3), np.uint8), iterations=2)
    d = d * inside
    noise = float(np.median(d[inside > 0]))
    dd = np.clip(d - 2 * noise - 4, 0, 60)
    rs, ratio = r / f, ring.axes[1] / ring.axes[0]
    k = int(math.ceil(1.5 * rs)) + 1
    ker = np.zeros((2 * k + 1, 2 * k + 1), np.float32)
    cv2.ellipse(ker, ((k, k), (3 * rs, 3 * rs * ratio), ring.angle_deg), -0.6, -1)
    cv2.ellipse(ker, ((k, k), (2 * rs, 2 * rs * ratio), ring.angle_deg), 1.0, -1)
    y, x = np.unravel_index(int(np.argmax(cv2.filter2D(dd, -1, ker))), dd.shape)
    c_img = ((x + 0.5) * f - 0.5, (y + 0.5) * f - 0.5)
    # the coin's outline: a circle of its radius in the ring plane, near there
    s = min(1.0, SIZE_WORK_R / r)       # working px per plane px
    rw = r * s
    m = ring.to_plane
    inv = cv2.invertAffineTransform(m)
    cp = m[:, :2] @ np.array(c_img) + m[:, 2]
    half = int(math.ceil(2.2 * rw))
    n = 2 * half + 1
    w2p = np.array([[1 / s, 0, cp[0] - half / s], [0, 1 / s, cp[1] - half / s]])   # working -> plane px
    w2i = np.hstack([inv[:, :2] @ w2p[:, :2], (inv[:, :2] @ w2p[:, 2] + inv[:, 2])[:, None]])
    x0, y0 = int(max(0, c_img[0] - 3 * r)), int(max(0, c_img[1] - 3 * r))
    crop = img[y0:int(c_img[1] + 3 * r) + 1, x0:int(c_img[0] + 3 * r) + 1]
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    if 1 / s > 1.3:   # shrinking: low-pass first
        grey = cv2.GaussianBlur(grey, (0, 0), 0.45 / s)
    w2i[:, 2] -= (x0, y0)
    work = cv2.warpAffine(grey, w2i, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)
    p = cv2.GaussianBlur(work.astype(np.float32), (0, 0), 1.0)
    gx, gy = cv2.Sobel(p, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(p, cv2.CV_32F, 0, 1, ksize=3)
    mag = cv2.magnitude(gx, gy)
    thr = max(4.0 * float(np.median(mag)), 8.0)
    ys, xs = np.nonzero(mag > thr)
    if len(xs) < 8:
        return None
    wt = np.minimum(mag[ys, xs], 4 * thr) / thr
    ux, uy = gx[ys, xs] / mag[ys, xs], gy[ys, xs] / mag[ys, xs]
    acc = np.zeros((n, n), np.float32)
    for sign in (1, -1):   # a coin darker or brighter than what it lies on
        for q in (0.97, 1.0, 1.03):   # the calibration's and the coin's own few percent
            cx = np.round(xs + sign * q * rw * ux).astype(int)
            cy = np.round(ys + sign * q * rw * uy).astype(int)
            ok = (cx >= 0) & (cx < n) & (cy >= 0) & (cy < n)
            np.add.at(acc, (cy[ok], cx[ok]), wt[ok])
    acc = cv2.GaussianBlur(acc, (0, 0), 1.0)
    yy, xx = np.mgrid[0:n, 0:n]
    acc[np.hypot(xx - half, yy - half) > rw] = 0   # within a coin radius of the difference's peak
    py, px = np.unravel_index(int(np.argmax(acc)), acc.shape)
    got = _refined_circle((px, py), rw, xs, ys, ux, uy, mag)   # refined on the edges near it
    if got is None:
        return None
    c, rad = got
    dx, dy = xs - c[0], ys - c[1]
    dist = np.hypot(dx, dy) + 1e-6
    on = (np.abs(dist - rad) <= max(1.0, SIZE_ON_TOL * rw)) & (np.abs(dx * ux + dy * uy) / dist > 0.95)
    arcs = np.unique((np.degrees(np.arctan2(dy[on], dx[on])) % 360 // 5).astype(int))
    support = arcs.size / 72
    gap = 5 * (int(np.diff(np.r_[arcs, arcs[:1] + 72]).max()) - 1) if arcs.size else 360
    if support < SIZE_SUPPORT or gap > SIZE_GAP or not SIZE_RADIUS[0] < rad / rw < SIZE_RADIUS[1]:
        return None
    cpl = w2p[:, :2] @ c + w2p[:, 2]
    ci = inv[:, :2] @ cpl + inv[:, 2]
    radius = float(rad / s)
    # its colour well inside the rim (the face, not the rim or the layout)
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.ellipse(mask, ((float(ci[0]), float(ci[1])), (1.2 * radius, 1.2 * radius * ratio), ring.angle_deg), 1, -1)
    chroma, bright = detect.face_colour(img, mask)
    blob = detect.Blob(center=(float(ci[0]), float(ci[1])), area_coins=1.0, plane_center=(float(cpl[0]), float(cpl[1])),
                       axes=(radius, radius), fit_err=float(np.median(np.abs(dist[on] - rad))) / s, chroma=chroma,
                       extra={"found_by": "known size", "support": round(support, 3), "gap_deg": gap})
    blob.extra["brightness"] = bright
    return {"blob": blob, "support": support}


def _refined_circle(peak, rw, xs, ys, ux, uy, mag):
    """(centre, radius) of the circle of about radius rw at `peak` refitted four times on the edge
    points (xs, ys; unit gradients ux, uy; magnitudes mag) near it and facing its centre, the
    band narrowing; None if fewer than 8 edges lie near it."""
    c, rad = np.array(peak, float), rw
    for band, across in ((0.06, 0.85), (0.06, 0.85), (0.04, 0.9), (0.04, 0.9)):
        dx, dy = xs - c[0], ys - c[1]
        dist = np.hypot(dx, dy) + 1e-6
        on = (np.abs(dist - rad) <= max(1.0, band * rw)) & (np.abs(dx * ux + dy * uy) / dist > across)
        if on.sum() < 8:
            return None
        c, rad = detect.circle_fit(xs[on], ys[on], mag[ys[on], xs[on]] ** 2)
    return c, rad


def _work_grid(ring, cp, half, s):
    """(working -> plane, working -> image) 2x3 maps of a (2 half + 1)^2 working grid centred on
    ring-plane point `cp`, `s` working px per plane px."""
    inv = cv2.invertAffineTransform(ring.to_plane)
    w2p = np.array([[1 / s, 0, cp[0] - half / s], [0, 1 / s, cp[1] - half / s]])
    w2i = np.hstack([inv[:, :2] @ w2p[:, :2], (inv[:, :2] @ w2p[:, 2] + inv[:, 2])[:, None]])
    return w2p, w2i


class _Frame:
    """A full-resolution photo as `_warp_work` resamples it, low-passed once per working scale
    and colour: `_off_shadow` resamples the same photo round up to 114 circles, and training
    compares every photo with the one empty ring's (a 4K frame's blur is most of a resampling)."""

    def __init__(self, img):
        self.img = img
        self._low = {}
        self._grid, self._on_grid = None, {}

    def low(self, s, grey=False):
        """The photo (its grey levels if `grey`) low-passed for `s` working px per px."""
        if (s, grey) not in self._low:
            a = cv2.cvtColor(self.img, cv2.COLOR_BGR2GRAY) if grey and self.img.ndim == 3 else self.img
            self._low[s, grey] = cv2.GaussianBlur(a, (0, 0), 0.45 / s) if 1 / s > 1.3 else a
        return self._low[s, grey]

    def on_grid(self, w2i, n, s, feats=False):
        """The photo on an n x n working grid (`_work_grid`'s w2i): its grey levels (float32), or
        with `feats` its colours' detect.colour_feats. The last grid's are kept: training compares
        every photo with the empty ring on the ring's one grid (`_coin_against_empty`)."""
        grid = (w2i.tobytes(), n, s)
        if grid != self._grid:
            self._grid, self._on_grid = grid, {}
        if feats not in self._on_grid:
            self._on_grid[feats] = (detect.colour_feats(_warp_work(self, w2i, n, s)) if feats
                                    else _warp_work(self, w2i, n, s, grey=True).astype(np.float32))
        return self._on_grid[feats]


def _warp_work(frame, w2i, n, s, grey=False):
    """`frame` (a _Frame) resampled onto an n x n working grid (low-passed first when shrinking)."""
    return cv2.warpAffine(frame.low(s, grey), w2i, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def _coin_against_empty(photo, ring, empty):
    """The circle of the calibrated coin size found against the empty ring's photo, at full
    resolution over the whole ring (both _Frames) -> {"blob", "support", "why"} ("blob" None with
    "why" when no single coin of that size lies wholly in the ring on its own).

    Print is in both photos: the edges of the photo less the empty ring (grey levels) are what
    the coin brought, its rim (which shades even over ink of its own colour), its relief, the
    print it covers (straight lines inside it), its drop shadow; nothing of the print outside it. A fixed-radius Hough of those edges over the whole ring finds the coin where
    nothing stood out at detection scale; the circle must then pass `_coin_of_size`'s tests on
    the same new edges (EMPTY_SUPPORT of its arcs, no gap over SIZE_GAP, its radius within
    SIZE_RADIUS), lie wholly inside the ring, have nothing beyond it that the empty ring lacks
    (EMPTY_AROUND: a chip, a second coin touching it, a hand), and be the only such circle."""
    r = ring.coin_radius_px
    R = ring.radius
    s = min(1.0, SIZE_WORK_R / r)
    rw, Rw = r * s, R * s
    half = int(math.ceil(Rw + 2.5 * rw))
    n = 2 * half + 1
    w2p, w2i = _work_grid(ring, np.array(ring.to_plane[:, :2] @ np.array(ring.center) + ring.to_plane[:, 2]), half, s)
    cw = np.array([half, half], float)      # the ring's centre, working px
    Q = cv2.GaussianBlur(photo.on_grid(w2i, n, s) - empty.on_grid(w2i, n, s), (0, 0), 1.0)
    gx, gy = cv2.Sobel(Q, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(Q, cv2.CV_32F, 0, 1, ksize=3)
    mag = cv2.magnitude(gx, gy)
    yy, xx = np.ogrid[0:n, 0:n]
    rho = np.hypot(xx - cw[0], yy - cw[1])
    inring = rho < Rw - 2
    thr = max(4.0 * float(np.median(mag[inring])), 8.0)
    new = (mag > thr) & inring
    ys, xs = np.nonzero(new)
    if len(xs) < 8:
        return {"blob": None, "support": 0.0, "why": "no edge in the ring that the empty ring lacks"}
    wt = np.minimum(mag[ys, xs], 4 * thr) / thr
    ux, uy = gx[ys, xs] / mag[ys, xs], gy[ys, xs] / mag[ys, xs]
    acc = np.zeros((n, n), np.float32)
    for sign in (1, -1):
        for q in (0.97, 1.0, 1.03):
            cx = np.round(xs + sign * q * rw * ux).astype(int)
            cy = np.round(ys + sign * q * rw * uy).astype(int)
            ok = (cx >= 0) & (cx < n) & (cy >= 0) & (cy < n)
            np.add.at(acc, (cy[ok], cx[ok]), wt[ok])
    acc = cv2.GaussianBlur(acc, (0, 0), 1.0)
    acc[rho > Rw - 0.9 * rw] = 0     # a centre this far out leaves the coin partly outside

    def circle_at(peak):
        got = _refined_circle(peak, rw, xs, ys, ux, uy, mag)
        if got is None:
            return None
        c, rad = got
        dx, dy = xs - c[0], ys - c[1]
        dist = np.hypot(dx, dy) + 1e-6
        on = (np.abs(dist - rad) <= max(EMPTY_ON_PX, SIZE_ON_TOL * rw)) & (np.abs(dx * ux + dy * uy) / dist > 0.95)
        arcs = np.unique((np.degrees(np.arctan2(dy[on], dx[on])) % 360 // 5).astype(int))
        gap = 5 * (int(np.diff(np.r_[arcs, arcs[:1] + 72]).max()) - 1) if arcs.size else 360
        return c, rad, arcs.size / 72, gap, float(np.median(np.abs(dist[on] - rad))) if on.any() else 99.0

    found = []
    a = acc.copy()
    for _ in range(EMPTY_PEAKS):
        py, px = np.unravel_index(int(np.argmax(a)), a.shape)
        if a[py, px] <= 0:
            break
        _clear_disc(a, px, py, 1.3 * rw)
        got = circle_at((px, py))
        if got is None:
            continue
        c, rad, support, gap, err = got
        if support >= EMPTY_SUPPORT and gap <= EMPTY_GAP and SIZE_RADIUS[0] < rad / rw < SIZE_RADIUS[1] and \
                not any(np.hypot(*(c - f[0])) < 1.3 * rw for f in found):
            found.append(got)
    if not found:
        return {"blob": None, "support": 0.0, "why": "no circle of the coin's size with its rim all round"}
    if len(found) > 1:
        return {"blob": None, "support": found[0][2], "why": f"{len(found)} circles of the coin's size in the ring"}
    c, rad, support, gap, err = found[0]
    if np.hypot(*(c - cw)) + rad > Rw:
        return {"blob": None, "support": support, "why": "the coin lies partly outside the ring"}
    # round: an ellipse through the outermost edge of each 5-degree arc out to EMPTY_RIM_OUT radii (the
    # rim; a tilted coin's is short across its tilt axis; the drop shadow's edge lies beyond)
    dx, dy = xs - c[0], ys - c[1]
    dist = np.hypot(dx, dy) + 1e-6
    near = (dist > 0.6 * rad) & (dist < EMPTY_RIM_OUT * rad) & (np.abs(dx * ux + dy * uy) / dist > 0.8)
    arc = (np.degrees(np.arctan2(dy[near], dx[near])) % 360 // 5).astype(int)
    outer = np.full(72, -1.0)
    np.maximum.at(outer, arc, dist[near])
    keep = outer > 0
    if keep.sum() >= 12:
        t = np.radians(np.arange(72) * 5 + 2.5)[keep]
        pts = c + outer[keep][:, None] * np.stack([np.cos(t), np.sin(t)], 1)
        (_, _), (ea, eb), _ = cv2.fitEllipse(pts.astype(np.float32))
        if min(ea, eb) / max(ea, eb) < EMPTY_FLAT:
            return {"blob": None, "support": support,
                    "why": f"the coin is not lying flat (its rim {min(ea, eb) / max(ea, eb):.2f} as wide as long)"}
    # nothing beyond it that the empty ring lacks (past its rim and drop shadow)
    D = detect.diff_feats(photo.on_grid(w2i, n, s, feats=True), empty.on_grid(w2i, n, s, feats=True))
    D = cv2.GaussianBlur(D, (0, 0), 1.0)
    dc = np.hypot(xx - c[0], yy - c[1])
    noise = float(np.percentile(D[inring & (dc > 3 * rw)], 95))
    around = (dc > EMPTY_AROUND[0] * rw) & (dc < EMPTY_AROUND[1] * rw) & inring
    level = max(2 * noise, 12.0)
    busy = float(np.mean(D[around] > level)) if around.any() else 1.0
    if busy > EMPTY_AROUND_MAX:
        return {"blob": None, "support": support,
                "why": f"something beside the coin differs from the empty ring ({busy:.0%} of the layout round it)"}
    cpl = w2p[:, :2] @ c + w2p[:, 2]
    inv = cv2.invertAffineTransform(ring.to_plane)
    ci = inv[:, :2] @ cpl + inv[:, 2]
    radius = float(rad / s)
    ratio = ring.axes[1] / ring.axes[0]
    mask = np.zeros(photo.img.shape[:2], np.uint8)
    cv2.ellipse(mask, ((float(ci[0]), float(ci[1])), (1.2 * radius, 1.2 * radius * ratio), ring.angle_deg), 1, -1)
    chroma, bright = detect.face_colour(photo.img, mask)
    blob = detect.Blob(center=(float(ci[0]), float(ci[1])), area_coins=1.0, plane_center=(float(cpl[0]), float(cpl[1])),
                       axes=(radius, radius), fit_err=err / s, chroma=chroma,
                       extra={"found_by": "against the empty ring", "support": round(support, 3), "gap_deg": gap,
                              "around": round(busy, 3)})
    blob.extra["brightness"] = bright
    return {"blob": blob, "support": support, "why": None}


def _clear_disc(a, px, py, rad):
    """Zero `a` within `rad` of (px, py), visiting only the square round it: the whole ring's
    working grid is ~3M px at 4K (sealed-13), the disc a few thousand."""
    k = int(rad) + 1
    y0, y1, x0, x1 = max(py - k, 0), min(py + k + 1, a.shape[0]), max(px - k, 0), min(px + k + 1, a.shape[1])
    yy, xx = np.ogrid[y0:y1, x0:x1]
    a[y0:y1, x0:x1][np.hypot(xx - px, yy - py) < rad] = 0


def _beyond(photo, ring, empty, plane_center, radius):
    """Share of the directions round a circle (ring-plane centre and radius) in which the photo just
    beyond it (EMPTY_BEYOND radii) differs in colour from the empty ring (both _Frames): ~0 round a
    coin's own rim (the layout or the coin's shadow lies there, and a shadow keeps the layout's
    chromaticity), large round a circle that cuts into the coin (its drop shadow's edge, 0.1 r off
    it under a low lamp)."""
    r = ring.coin_radius_px
    s = min(1.0, SIZE_WORK_R / r)
    half = int(math.ceil((EMPTY_BEYOND[1] + 0.6) * radius * s))
    n = 2 * half + 1
    w2p, w2i = _work_grid(ring, np.asarray(plane_center, float), half, s)
    a, b = (cv2.GaussianBlur(_warp_work(x, w2i, n, s), (0, 0), 1.0) for x in (photo, empty))
    fa, fb = detect.colour_feats(a), detect.colour_feats(b)
    ch = cv2.transform(cv2.absdiff(fa[0], fb[0]), np.ones((1, 3), np.float32))
    yy, xx = np.mgrid[0:n, 0:n]
    dc = np.hypot(xx - half, yy - half) / (radius * s)
    far = (dc > 2.2) & (dc < 2.6)
    level = max(2.0 * float(np.percentile(ch[far], 90)), EMPTY_BEYOND_MIN) if far.any() else EMPTY_BEYOND_MIN
    band = (dc > EMPTY_BEYOND[0]) & (dc < EMPTY_BEYOND[1])
    ang = (np.degrees(np.arctan2(yy[band] - half, xx[band] - half)) % 360 // 5).astype(int)
    med = _bin_medians(ch[band], ang, 72)
    return float(np.mean(med > level)), level


def _bin_medians(v, bins, nb):
    """np.array([np.median(v[bins == k]) if any else 0.0 for k in range(nb)]) of float32 `v` from
    one sort (`_off_shadow` asks for 72 of them at each of up to 114 circles): each the middle value
    or the float32 mean of the two middle ones, as np.median takes them; float64 where a bin is
    empty, as np.array makes float32 medians beside 0.0 (the comparison with a Python float then
    differs)."""
    vs = np.concatenate([v[np.lexsort((v, bins))], np.zeros(1, v.dtype)])   # (an empty bin's index may be past the end)
    counts = np.bincount(bins, minlength=nb)
    starts, counts = (np.cumsum(counts) - counts)[:nb], counts[:nb]
    med = (vs[starts + (counts - 1) // 2] + vs[starts + counts // 2]) / 2
    return med if counts.all() else np.where(counts > 0, med.astype(np.float64), 0.0)


def _off_shadow(photo, ring, empty, blob):
    """`blob` (a circle of the coin's size found by its edges) moved to where nothing of the coin's
    colour lies beyond it (`_beyond`): a circle through the edge of the coin's drop shadow (a disc
    of the coin's size, 0.1 coin radii off it under a low lamp) cuts into the coin on the lamp's
    side. A circle with nothing beyond it in all but BEYOND_MAX of the directions stays; otherwise
    the least of the shifts (within SHADOW_REACH coin radii) with the fewest directions spilling
    is taken, if that few is at most BEYOND_MAX."""
    r = blob.axes[0]
    if _beyond(photo, ring, empty, blob.plane_center, r)[0] <= BEYOND_MAX:
        return blob
    step = SHADOW_STEP * r
    k = int(round(SHADOW_REACH / SHADOW_STEP))
    c0 = np.array(blob.plane_center, float)
    shifts = [(i * step, j * step) for i in range(-k, k + 1) for j in range(-k, k + 1) if i * i + j * j <= k * k]
    spill = np.array([_beyond(photo, ring, empty, c0 + d, r)[0] for d in shifts])
    sh = np.array(shifts)
    best = np.flatnonzero(spill <= spill.min() + 1e-9)
    d = sh[best[np.argmin(np.hypot(sh[best, 0], sh[best, 1]))]]   # the least shift that spills least
    if spill.min() > BEYOND_MAX or not np.any(d):
        return blob
    cp = c0 + d
    inv = cv2.invertAffineTransform(ring.to_plane)
    ci = inv[:, :2] @ cp + inv[:, 2]
    blob.center, blob.plane_center = (float(ci[0]), float(ci[1])), (float(cp[0]), float(cp[1]))
    blob.extra["shadow_shift_r"] = round(float(np.hypot(*d)) / r, 3)
    blob.extra["beyond"] = round(float(spill.min()), 3)
    return blob


def _coin_by_outline(img, ring, name, blobs):
    """The one coin lying flat in a training photo -> Blob; TrainingPhotoError if not.

    The coin is found by shape (a clean round outline inside the ring), not by the size the
    calibration expects, so a wrong scale is reported as such rather than as "no coin"."""
    R, c_ring = ring.radius, np.array(ring.center)
    cands, others, rough, parts = [], [], [], []
    for b in blobs:
        x, y = detect.seen_center(b, ring)
        entry = {"center": [round(x, 1), round(y, 1)],
                 "radius": round(b.axes[0] if b.axes else max(b.bbox[2:]) * ring.factor / 2, 1)}
        inside = b.plane_center is not None and float(np.hypot(*(np.array(b.plane_center) - c_ring))) < R
        # a clean outline of a coin's size is a coin however little of it stands out from the
        # layout (a coin lying mostly on print of its own colour: detect._round_outline, _recentred)
        whole = b.axes is not None and b.fit_err <= 1.0 and 0.75 < b.axes[0] / ring.coin_radius_px < 1.33
        if b.axes is not None and inside and b.fit_err < 1.5 and (0.3 < b.area_coins < 4.0 or whole):
            cands.append((b, entry))
        elif (inside or b.extra.get("in_ring_coins", 0) > 0.2) and b.area_coins > 0.3:
            others.append(dict(entry, kind="object", inside=True))
            # coin-sized, inside, with an outline that fits a circle badly: a coin on an edge?
            rough.append(b.axes is not None and inside and 0.5 < b.area_coins < 2.0)
        elif inside:   # too small for a coin: the part of one that stands out from print of its colour?
            parts.append(b)
    coins = [dict(e, face=None, flat=bool(b.axes[1] / b.axes[0] >= 0.93), inside=True, confidence=0.0)
             for b, e in cands]
    if not cands and rough == [True]:
        why = ("found one object in the ring but could not fit a clean round outline to it: a coin "
               "lying across a printed line or box edge of a colour close to its own? Lay it on a "
               "plain part of the layout and retake")
        raise TrainingPhotoError(name, why, img, _found(ring, coins, others, why))
    if not cands and not others and parts:
        why = (f"found only part of a coin in the ring ({max(p.area_coins for p in parts):.0%} of one stands out "
               "from the empty layout): a coin lying mostly on print of a colour close to its own? Lay it on a "
               "plain part of the layout and retake")
        raise TrainingPhotoError(name, why, img, _found(ring, coins, others, why))
    if len(cands) != 1 or others:
        why = (f"found {len(cands)} coin-like objects and {len(others)} other objects in the ring; need exactly "
               "one coin lying flat in the ring (nothing else in the ring)")
        raise TrainingPhotoError(name, why, img, _found(ring, coins, others, why))
    b = cands[0][0]
    expect = ring.coin_radius_px
    ratio = b.axes[0] / expect
    if not 0.75 < ratio < 1.33:
        # no circle of the calibrated size is there (`_coin_of_size`): either the calibration's
        # size is wrong or the outline is not the coin's alone (print of its colour joined to it:
        # edge-tune "measures 126 px", a coin 88 px across); the technician can tell which
        why = (f"the coin measures {2 * b.axes[0]:.0f} px across but the ring calibration expects "
               f"{2 * expect:.0f} px: if it lies on or against print of about its own colour, the outline may "
               "take in the print (lay it on a plain part of the layout and retake); if it measures so on plain "
               "cloth too, recalibrate with the right --coin-mm and --ring-mm")
        raise TrainingPhotoError(name, why, img, _found(ring, coins, others, why))
    if b.axes[1] / b.axes[0] < 0.93:
        why = ("the coin is not lying flat (or, lying on print of a colour close to its own, only part of it stands "
               "out); lay it flat on a plain part of the layout and retake")
        raise TrainingPhotoError(name, why, img, _found(ring, coins, others, why))
    return b


# The coins' size checks the ring's calibration. Its boundary in px and the ring's and the coin's
# diameters in mm (`ring vision calibrate --ring-mm --coin-mm`) give the size a coin should
# measure; training measures it on every photo. A boundary found on a wall's narrow inner band, or
# past a strip of cloth, 5-12% beyond the wall's foot (the thirtieth session's review: 60 of 740
# rings built to mislead calibration, docs/VISION.md Known limits) makes the coins measure that
# much small, and a printed circle taken for the wall that much large: in play a coin on the rim
# would be taken as inside, or a coin inside as outside (7.3.1). Training is refused
# (`ScaleError`, `check_scale`) when the coins' median radius, as the coin finder measures it, is
# smaller than expected by more than SCALE_SMALL of it, or larger by more than SCALE_LARGE and
# SCALE_BLUR_PX. An outline comes out larger than the coin, never smaller: by 0.1-1.8 px on 48
# sites (coins 40-120 px at 1080p and 4K on four layouts; the most on black cloth), 1.004-1.11
# of the size expected on a review's 106 hard right calibrations (lenses, blur, low lamps, big
# and small coins; docs/VISION.md, "The coins' size checks the calibration"). So smaller is
# allowed only what a tape-measured ring and a nominal coin leave (~1%); larger, that blur too.
# The blur is not known per ring: a boundary 4-10% beyond the wall's foot can still train.
SCALE_SMALL = 0.015
SCALE_LARGE = 0.03
SCALE_BLUR_PX = 2.0
SCALE_PHOTOS = 4   # photos measured by the finder, at least, for the check (else none is made)


class ScaleError(TrainingPhotoError):
    """Training refused: the coins measure unlike the size the ring's calibration expects
    (SCALE_SMALL, SCALE_LARGE, SCALE_BLUR_PX). `image` and `found`: one photo with the boundary
    and its coin drawn."""

    def __init__(self, name, why, image, found):
        super().__init__(name, why, image, found)
        self.args = (why,)


def _finder_sizes(coins):
    """(radius px, photo index) of each photo's coin as the coin finder measured it."""
    return [(b.extra.get("finder_r", b.axes[0]), i) for i, b in enumerate(coins)
            if b is not None and ("found_by" not in b.extra or "finder_r" in b.extra)]


def scale_fits(ring, coins):
    """(the coins' median radius over what `ring` expects, True when that is within SCALE_SMALL
    smaller and SCALE_LARGE and SCALE_BLUR_PX larger), or None with fewer than SCALE_PHOTOS
    measured by the finder. `coins`: each photo's coin Blob (None: left out)."""
    sizes = _finder_sizes(coins)
    if len(sizes) < SCALE_PHOTOS:
        return None
    r_exp = ring.coin_radius_px
    off = float(np.median([r for r, _ in sizes])) - r_exp
    return 1 + off / r_exp, -SCALE_SMALL * r_exp <= off <= SCALE_LARGE * r_exp + SCALE_BLUR_PX


def check_scale(ring, coins, photos, names):
    """ScaleError when the coins' median radius over the photos, as the coin finder measured them
    (not the circle of the calibrated size, which takes that size for granted), is off what the
    calibration expects by more than SCALE_SMALL (smaller) or SCALE_LARGE and SCALE_BLUR_PX
    (larger). `coins`: each photo's coin Blob (None: left out); `photos`: (photo, face) pairs;
    fewer than SCALE_PHOTOS measured by the finder: no check."""
    fits = scale_fits(ring, coins)
    if fits is None or fits[1]:
        return
    ratio, sizes = fits[0], _finder_sizes(coins)
    i = sizes[0][1]
    photo, name, b = photos[i][0], names[i], coins[i]
    small = ratio < 1
    why = (f"the coins measure {abs(ratio - 1):.0%} {'smaller' if small else 'larger'} than the ring's "
           f"calibration expects ({2 * ratio * ring.coin_radius_px:.0f} px across against "
           f"{2 * ring.coin_radius_px:.0f} px from --coin-mm {ring.coin_mm:g} and --ring-mm {ring.ring_mm:g}): "
           f"either the ring's edge was found {'beyond' if small else 'inside'} the wall's foot (in play a coin "
           f"{'on the rim would be taken as inside' if small else 'inside would be taken as outside'}; "
           "check the boundary drawn) or the diameters given are wrong"
           + ("" if small else ", or the camera is out of focus (a blurred outline measures wide)")
           + ": measure the ring's inner diameter at the wall's foot and the coin, calibrate again with "
           "--ring-mm and --coin-mm, then train again")
    # the picture: the boundary and the coin as the finder measured it, the reason as training's
    found = _found(ring, [_entry(b, ring, radius=round(sizes[0][0], 1))], [], why)
    found["reasons"] = [f"training refused: {why}"]
    raise ScaleError(name, why, photo, found)


def _training_photo(img, ring, name, empty):
    """(the photo balanced as in play, its coin Blob) as training takes one photo with `ring` (and
    `empty`, the empty ring's _Frame, or None), or TrainingPhotoError: a colour cast, no clean coin
    found, or a coin at the camera's limit."""
    ring.check_frame(img)
    raw = img
    img, cast = balance.balanced(img, ring)   # the calibration's colour balance and exposure, as in play
    if cast:
        why = cast.split(": ", 1)[1]
        raise TrainingPhotoError(name, why, img, _found(ring, [], [], why))
    b = _coin_inside(img, ring, name, empty)
    # the camera's own values (balancing moves the limit), then the copy training reads
    share = clipped_share(raw, ring, b)
    fitted = share if img is raw else clipped_share(img, ring, b)
    if max(share, fitted) > CLIP_MAX:
        why = CLIPPED.format(share) if share > CLIP_MAX else CLIPPED_BALANCED.format(fitted)
        raise TrainingPhotoError(name, why, raw, _found(ring, [_entry(b, ring)], [], why), clipped=True)
    return img, b


def _coins_found(photos, ring, names, empty):
    """Each photo's coin Blob as training finds it with `ring` (None where it refuses the photo)."""
    found = []
    for (img, _), name in zip(photos, names):
        try:
            found.append(_training_photo(img, ring, name, empty)[1])
        except TrainingPhotoError:
            found.append(None)
    return found


# `settle`: the coins' size chooses one of a band's two boundaries only where the finder measured
# the coin in SETTLE_FOUND of the photos or more with it, they fit it without the room training
# leaves for the diameters given (1.5% smaller to SCALE_BLUR_PX larger, not SCALE_LARGE more),
# the finder measured at least as many with it as with the other, and the other is off even with
# that room (training's window), or the finder measured under SETTLE_FOUND with it
SETTLE_FOUND = 0.5


def _check_photo_counts(heads_imgs, tails_imgs):
    if len(heads_imgs) < 4 or len(tails_imgs) < 4:
        raise UserError(f"need at least 4 photos per face ({RECOMMENDED_PHOTOS} recommended); "
                        f"got {len(heads_imgs)} heads, {len(tails_imgs)} tails")


def settle(ring, heads_imgs, tails_imgs, names=None, empty=None):
    """(settled RingModel, the line saying how) for a ring calibrated beside a band it could not
    settle (ring.calibrate's `unsettled_ok`): of the edge found and the band's inner side, the one
    the coins' size fits while the other is clearly off (SETTLE_FOUND). A settled ring
    comes back as it is, with None. UserError when both fit (a band too narrow for the coins to
    tell), neither does, the other is not clearly off, or too few coins were measured: the
    technician's tape is the fix then, as before.

    The two boundaries differ by the band's width, 5-20% of the radius, and so do the coins'
    sizes measured against them; the diameters given (--ring-mm, --coin-mm) are taken as right:
    an error in them about the band's width could choose the other, so the line says which was
    taken and asks for the boundary drawn to be checked (docs/VISION.md "A band round the ring
    settled by the coins' size"): the ring comes back `unconfirmed`, which no command but
    training takes from a file until the technician confirms it (`RingModel.confirm`)."""
    if not ring.unsettled:
        return ring, None
    _check_photo_counts(heads_imgs, tails_imgs)
    photos = [(im, "heads") for im in heads_imgs] + [(im, "tails") for im in tails_imgs]
    names = names or [f"heads#{i}" for i in range(len(heads_imgs))] + [f"tails#{i}" for i in range(len(tails_imgs))]
    empty = None if empty is None else _Frame(empty)
    edge = copy.copy(ring)
    edge.unsettled = edge.band_inner = None
    cands = (("the edge found", edge), ("the band's inner side", ring.band_inner))
    found = [_coins_found(photos, r, names, empty) for _, r in cands]
    fits = [scale_fits(r, f) for (_, r), f in zip(cands, found)]
    measured = [len(_finder_sizes(f)) for f in found]
    told = "; ".join(f"{what} expects {2 * r.coin_radius_px:.0f} px across"
                     + ("" if fit is None else f", the coins measure {fit[0]:.2f} of it in {k} of {len(photos)} photos")
                     for (what, r), fit, k in zip(cands, fits, measured))
    fix = ("mark the layout's edge with a strip of contrasting tape along the wall's foot, or cover a printed "
           "border with plain cloth of the layout's colour, and calibrate again")
    if any(fit is None for fit in fits):
        raise UserError(f"{ring.unsettled}, and too few coins were measured to settle it ({told}); {fix}")
    enough = [k >= SETTLE_FOUND * len(photos) for k in measured]
    # a boundary far off makes the finder take other things for the coin in some photos (sealed-35
    # 1471872027, its boundary 25% out: 17 of 24 refused, 7 measured at the size it expects, the
    # coin 20% smaller): hence SETTLE_FOUND
    tight = [ok and -SCALE_SMALL <= q - 1 <= SCALE_BLUR_PX / r.coin_radius_px
             for ok, (q, _), (_, r) in zip(enough, fits, cands)]
    off = [not ok or not within for ok, (_, within) in zip(enough, fits)]
    pick = [tight[i] and off[1 - i] and measured[i] >= measured[1 - i] for i in (0, 1)]
    if pick.count(True) != 1:
        how = ("both fit the coins' size" if all(tight) else "neither fits the coins' size" if not any(tight)
               else "the coins' size does not tell them apart clearly")
        raise UserError(f"{ring.unsettled}, and {how} ({told}); {fix}")
    what, chosen = cands[pick.index(True)]
    line = (f"{SETTLED}: {what} ({told}); "
            f"{ring.unsettled.partition(': ')[2] or ring.unsettled}. This takes --ring-mm {ring.ring_mm:g} and "
            f"--coin-mm {ring.coin_mm:g} as right (a diameter off by about the band's width would choose the "
            "other): check the boundary drawn lies on the wall's foot")
    chosen = copy.copy(chosen)
    chosen.warnings = list(chosen.warnings) + [line]
    chosen.settled_by_coins = {"how": line, "drawn": NOT_DRAWN}   # refused from a file until confirmed
    return chosen, line


# A refused photo (TrainingPhotoError: no clean coin found in it) is left out of training when
# at most this share of its face's photos are refused and 4 of them remain: one coin laid where
# print hides its rim does not send the technician back to retake all 24; the model's report
# names each photo left out and why ("left_out"), and the others' turns must still spread round
# the coin (the relit templates). More refused than that: the photos, the ring's calibration or
# the spot the coin lies on are wrong, and training is refused naming a photo whose coin is at the
# camera's limit (CLIPPED: the exposure is the fix for all), else the calibration's scale where
# the coins' size (refused photos' finder outlines counted) is off it and the photos accepted do
# not show it right (`check_scale`), else the first refused.
LEAVE_OUT_MAX = 0.25


def train(heads_imgs, tails_imgs, ring, names=None, empty=None, refused=None):
    """Learn both faces from 12 photos each (4 at least) of one coin lying flat -> FaceModel.

    The photos are taken in the ring by its own camera under its own lights, the coin turned a
    clock-hour and moved between photos (hardware/INSTALL.md): a struck coin's relief shades by
    the light's direction, which turns with the coin, so 12 turns per face cover every turn a
    coin lands in (each is matched against every photo, at every rotation).

    `empty`: the calibration's photo of the empty ring (same camera, full resolution), which lets
    a coin lying on print be told from the print (`training_coin`).

    `refused`: a list that gets the TrainingPhotoError of each photo left out (LEAVE_OUT_MAX), so
    the caller can draw what was found in it.

    Raises UserError when there are too few photos or when leave-one-out cross-validation
    shows the faces do not separate (a coin would be misread or left unread); TrainingPhotoError
    when more of a face's photos are refused than may be left out.
    """
    heads_imgs, tails_imgs = list(heads_imgs), list(tails_imgs)
    _check_photo_counts(heads_imgs, tails_imgs)   # (an unsettled ring: every photo's check_frame refuses it)
    names = names or [f"heads#{i}" for i in range(len(heads_imgs))] + [f"tails#{i}" for i in range(len(tails_imgs))]
    photos = [(im, "heads") for im in heads_imgs] + [(im, "tails") for im in tails_imgs]
    empty = None if empty is None else _Frame(empty)
    found, out, finder = [], {"heads": [], "tails": []}, []
    for i, (img, lab) in enumerate(photos):
        try:
            img, b = _training_photo(img, ring, names[i], empty)
            photos[i] = (img, lab)
            found.append(b)
            finder.append(b)
        except TrainingPhotoError as exc:   # (its photo is read no more)
            found.append(None)
            finder.append(exc.finder)
            out[lab].append(exc)
    for lab, n in (("heads", len(heads_imgs)), ("tails", len(tails_imgs))):
        if out[lab] and (len(out[lab]) > LEAVE_OUT_MAX * n or n - len(out[lab]) < 4):
            # a coin at the camera's limit first, of either face: the exposure is every photo's fix
            clipped = next((e for e in out["heads"] + out["tails"] if e.clipped), None)
            if clipped is not None:
                raise clipped
            # then the coins' size against the calibration's, counting the finder's outlines of
            # the photos refused because the circle of the calibrated size disagreed: a boundary
            # found on a printed circle inside the wall makes every photo so (opened sealed-41
            # 1178363286, 14% inside, was refused as "lay it on a plain part of the layout and
            # retake", which no photo mends); not where the photos accepted show the scale right
            # (then the refused ones' outlines took in print or only part of the coin)
            fits = scale_fits(ring, found)
            if fits is None or not fits[1]:
                check_scale(ring, finder, photos, names)
            raise out[lab][0]
    if refused is not None:
        refused.extend(out["heads"] + out["tails"])
    feats, labels, chroma, radii, big, leans = [], [], [], [], [], []
    for (img, lab), b in zip(photos, found):
        if b is None:
            continue
        f, x = features_lean(coin_patch(img, ring, b))
        feats.append(f)
        leans.append(x)
        labels.append(lab)
        chroma.append(b.chroma)
        radii.append(b.axes[0] / ring.coin_radius_px)
        big.append(coin_patch(img, ring, b, RELIGHT_R))
    check_scale(ring, found, photos, names)
    model = fit(feats, labels, big, np.mean(chroma, axis=0), float(np.median(radii)), leans)
    model.report["left_out"] = [{"photo": e.name, "why": e.why} for e in out["heads"] + out["tails"]]
    return model


def fit(feats, labels, big, chroma, radius_ratio, leans):
    """The model from the training photos' feature stacks, labels, RELIGHT_R patches and `lean`s
    (train's second half: the leave-one-out check, the thresholds, the relit templates)."""
    feats = np.array(feats, np.float32)
    labels = list(labels)
    lab = np.array(labels)
    spec = _spectrum(feats)
    norm = float(feats[0].size)
    own, other = [], []
    for i in range(len(feats)):
        keep = np.arange(len(feats)) != i
        s = best_match(spec[i], spec[keep], norm)
        l = lab[keep]
        own.append(float(s[l == lab[i]].max()))
        other.append(float(s[l != lab[i]].max()))
    own, other = np.array(own), np.array(other)
    margins = own - other
    errors = int((margins <= 0).sum())
    report = {"photos": {"heads": int((lab == "heads").sum()), "tails": int((lab == "tails").sum())},
              "loo_errors": errors, "loo_margin_min": round(float(margins.min()), 4),
              "loo_margin_median": round(float(np.median(margins)), 4),
              "own_score_min": round(float(own.min()), 4), "other_score_max": round(float(other.max()), 4)}
    if errors or np.median(margins) < LOO_MEDIAN_MIN or margins.min() < 0.02:
        raise UserError(f"the two faces do not separate (leave-one-out: {errors} of {len(feats)} photos "
                        f"misread, median margin {np.median(margins):.3f}, least {margins.min():.3f}); check the folders hold the right "
                        "faces, the coin is sharp, in focus and at least 40 px across; under a low or side light take 12 "
                        "photos per face, turning the coin a clock-hour (30 deg) between photos")
    # Thresholds. The photos share one light; in play the light, blur and size differ, and a
    # genuine match then scores far lower (down to ~0.35 of a photo's 0.7-0.95 on tuning scenes
    # lit 35-88 deg high) while the other face's score barely rises: the margin is what tells the
    # faces apart, so the score floor only keeps out what is no coin face at all (a blank or
    # noisy disc scores <= 0.26). The margin scales with how far apart the two faces are, within
    # fixed bounds so that a coin halfway between the faces stays unsure (tuning scenes only:
    # tune-*, tuning generator, and the light/blur/size variety of tests/vision).
    min_score = float(max(MIN_SCORE_FLOOR, 0.3 * own.min()))
    min_margin = float(np.clip(MARGIN_OF_MEDIAN * np.median(margins), *MARGIN_BOUNDS))
    report.update({"min_score": round(min_score, 4), "min_margin": round(min_margin, 4)})
    # the light the photos were taken under, as far as a coin shows it (FaceModel.lamp): per face,
    # as a design may lean by itself (bars across a face)
    report["lean"] = {f: [round(float(q), 4) for q in np.percentile(np.abs(leans)[lab == f], (0, 50, 100))]
                      for f in ("heads", "tails")}
    # the thresholds above are the photos' own; relit templates only add pictures of each face
    relit, relit_labels, why, turns, refused, searched = _relight(feats, lab, big)
    report.update({"relit_templates": len(relit), "relit_note": why, "relit_refused": refused,
                   "turns_searched": searched})
    n_photos = len(feats)
    if relit:
        feats = np.concatenate([feats, np.array(relit, np.float32)])
        labels = labels + relit_labels
    # the light's own lean, the design's taken out (FaceModel.light_leans); the drawings lie in
    # the first photo's frame
    fits = {f: light_fit(np.asarray(leans)[lab == f], turns[lab == f]) for f in ("heads", "tails")}
    # only turns the relit templates were made from (the photos' registration checked) are trusted;
    # not turns searched by the shading (`_search_turns`, ~10 deg off on sealed-50: the lean's
    # doubled angle doubles that)
    if relit and not searched and all(v is not None and v[2] <= LIGHT_FIT_RMS for v in fits.values()):
        report["light_lean"] = {f: {"design": [round(d.real, 5), round(d.imag, 5)], "light": round(abs(l), 4),
                                    "rms": round(rms, 4)} for f, (d, l, rms) in fits.items()}
        report["template_turns"] = [round(float(t), 3) for t in turns] + [0.0] * len(relit)
    return FaceModel(feats, labels, chroma, radius_ratio, min_score, min_margin, report, n_photos)


def _relight(feats, lab, big):
    """(relit feature stacks of both faces, their labels, a note for the report, each photo's turn
    (deg, `_register`) from its face's first photo, why none: None, "turns" (the photos' turns,
    as registered or searched, do not spread round the coin) or "apart" (a photo left out read
    nearer the other face's drawings; train_verdict says what to do), the faces whose turns were
    taken from the search by their shading (`_search_turns`)). Checked like the
    photos: each photo left out of its own face's relighting must still read as its face against
    everything else (the other face relit from all its photos); if one does not, no relit
    templates are kept and the model is the photos alone."""
    faces = ("heads", "tails")
    idx = {f: np.flatnonzero(lab == f) for f in faces}
    turns = np.zeros(len(feats))
    searched = []
    for f in faces:
        turns[idx[f]] = _register(feats[idx[f]], [big[i] for i in idx[f]])
        if _spread(turns[idx[f]]) < RELIGHT_SPREAD_MIN:
            found = _search_turns([big[i] for i in idx[f]], turns[idx[f]])
            if found is not None:
                turns[idx[f]] = found
                searched.append(f)
    full = {f: relit_templates([big[i] for i in idx[f]], turns[idx[f]]) for f in faces}
    if not full["heads"] or not full["tails"]:
        return [], [], ("none: the photos of a face were not taken at turns spread round the coin, or its "
                        "design looks alike at every turn (turn it a clock-hour between photos)"), turns, "turns", searched
    norm = float(feats[0].size)
    worst = np.inf
    for f, g in (faces, faces[::-1]):
        for i in idx[f]:
            keep = [j for j in idx[f] if j != i]
            own_t = list(feats[keep]) + relit_templates([big[j] for j in keep], turns[keep])
            other_t = list(feats[idx[g]]) + full[g]
            s = best_match(_spectrum(feats[i]), _spectrum(np.array(own_t + other_t, np.float32)), norm)
            worst = min(worst, float(s[:len(own_t)].max() - s[len(own_t):].max()))
    if worst <= 0:
        return [], [], f"none: a photo left out read nearer the other face's relit pictures (margin {worst:.3f})", \
            turns, "apart", searched
    return full["heads"] + full["tails"], ["heads"] * len(full["heads"]) + ["tails"] * len(full["tails"]), \
        f"{RELIGHT_TURNS} lamp azimuths x gains {list(RELIGHT_GAINS)} per face; photo left out: worst margin {worst:.3f}", \
        turns, None, searched
