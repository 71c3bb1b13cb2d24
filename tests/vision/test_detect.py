"""vision.detect: the foreground objects of a frame, measured: both coins found where they are,
round and coin-sized when flat, and nothing found on the empty ring."""
import numpy as np

from ringctl.sim import render, scenes, vision_bench as bench
from ringctl.vision import detect


def test_both_coins_are_found_where_they_lie_and_measured_flat():
    spec = scenes.make(24, "valid", chips=0)
    rm = bench.site(spec, 24)
    img, truth = render.render_scene(spec, np.random.default_rng(24))
    blobs = detect.find_blobs(img, rm)
    for coin in truth["coins"]:
        # a circular ring: ring-plane px are image px; the outline fit is sub-pixel
        near = [b for b in blobs if np.hypot(*np.subtract(b.plane_center, coin["center"])) < 1.0]
        assert len(near) == 1, (coin, [b.plane_center for b in blobs])
        b = near[0]
        assert 0.8 < b.area_coins < 1.6 and b.fit_err < 0.5, b
        a, c = b.axes
        assert c / a > 0.97 and abs(a - coin["radius"]) < 0.05 * coin["radius"], b


def test_an_empty_ring_has_no_objects():
    spec = scenes.make(24, "valid", chips=0)
    rm = bench.site(spec, 24)
    img, _ = render.render_scene(scenes.empty(spec), np.random.default_rng(3))
    assert detect.find_blobs(img, rm) == []


# --- the fast paths equal the straightforward computation -------------------------------------
import copy  # noqa: E402

import cv2  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given, settings, strategies as st  # noqa: E402


def dense_objects(blurred, bg_feats, in_ring, min_area):
    """The foreground as first written (dense difference over the whole ROI, cv2's component
    statistics): [(area, bbox, centroid, pixels in the ring)], largest first, and thr."""
    fa = detect.colour_feats(blurred)
    chroma = cv2.transform(cv2.absdiff(fa[0], bg_feats[0]), detect._ONES)
    d = chroma + 45 * cv2.absdiff(fa[1], bg_feats[1])
    thr = max(45.0, 4.0 * float(np.median(d[::4, ::4])))
    thr_in = max(detect.CHROMA_IN_RING, 4.0 * float(np.median(chroma[::4, ::4])))
    k2 = np.ones((2, 2), np.uint8)
    mask = cv2.morphologyEx((d > thr).astype(np.uint8), cv2.MORPH_OPEN, k2)
    extra = cv2.morphologyEx(((chroma > thr_in) & (in_ring > 0) & (mask == 0)).astype(np.uint8), cv2.MORPH_OPEN, k2)
    if extra.any():
        n_x, lbl_x = cv2.connectedComponents(extra, connectivity=8)
        n_m, lbl_m, st_m, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        big = np.nonzero(st_m[:, cv2.CC_STAT_AREA] >= min_area)[0]
        near = cv2.dilate(np.isin(lbl_m, big[big > 0]).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        touching = np.unique(lbl_x[near & (extra > 0)])
        mask |= ((extra > 0) & ~np.isin(lbl_x, touching)).astype(np.uint8)
    n, lbl, stats, cents = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)
    out = []
    for k in range(1, n):
        x, y, w, h, area = stats[k]
        if area >= min_area:
            out.append((float(area), (int(x), int(y), int(w), int(h)), tuple(cents[k]),
                        float(np.count_nonzero((lbl == k) & (in_ring > 0)))))
    out.sort(key=lambda o: -o[0])
    return out, thr


def fast_objects(blurred, bg_feats, in_ring, min_area):
    grid = tuple(np.ascontiguousarray(a[::detect.GRID, ::detect.GRID]) for a in bg_feats)
    objs, thr, _ = detect.foreground_objects(blurred, bg_feats, grid, in_ring,
                                             np.ascontiguousarray(in_ring[::detect.GRID, ::detect.GRID]), min_area)
    return [(o["area"], o["bbox"], o["centroid"], o["in_ring"]) for o in objs], thr


def synthetic_frame(seed, h, w):
    """An empty 'ring' (smooth colour), and a frame with specks, blobs of all sizes (some cut by
    the edges, some a few px apart, some of nearly the background's colour inside the ring)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w]
    bg = np.dstack([60 + 40 * np.sin(xx / 17 + c) + 20 * np.cos(yy / 11 + c) for c in range(3)])
    bg = np.clip(bg + rng.normal(0, 2, bg.shape), 0, 255).astype(np.uint8)
    img = bg.copy()
    in_ring = np.zeros((h, w), np.uint8)
    cv2.circle(in_ring, (w // 2, h // 2), min(h, w) // 3, 1, -1)
    for _ in range(rng.integers(3, 25)):
        c = (int(rng.integers(-3, w + 3)), int(rng.integers(-3, h + 3)))
        r = int(rng.integers(0, 9))
        col = rng.integers(0, 256, 3) if rng.random() < 0.7 else np.clip(bg[min(h - 1, max(0, c[1])),
                                                                               min(w - 1, max(0, c[0]))] * 1.25, 0, 255)
        if rng.random() < 0.3:
            cv2.rectangle(img, c, (c[0] + int(rng.integers(1, 4)), c[1] + int(rng.integers(1, 4))),
                          [int(v) for v in col], -1)
        else:
            cv2.circle(img, c, r, [int(v) for v in col], -1)
    for _ in range(rng.integers(0, 300)):   # single-pixel noise
        img[rng.integers(0, h), rng.integers(0, w)] = rng.integers(0, 256, 3)
    bgf = detect.colour_feats(cv2.GaussianBlur(bg, (3, 3), 0))
    return cv2.GaussianBlur(img, (3, 3), 0), bgf, in_ring


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10 ** 6), h=st.integers(9, 80), w=st.integers(9, 80),
       min_area=st.sampled_from([0.5, 4.0, 12.0]))
def test_windowed_foreground_equals_the_dense_computation(seed, h, w, min_area):
    blurred, bgf, in_ring = synthetic_frame(seed, h, w)
    assert fast_objects(blurred, bgf, in_ring, min_area) == dense_objects(blurred, bgf, in_ring, min_area)


def test_windowed_foreground_equals_the_dense_computation_on_a_rendered_scene():
    spec = scenes.make(31, "valid", chips=4)
    rm = bench.site(spec, 31)
    img, _ = render.render_scene(spec, np.random.default_rng(31))
    detect._blurred_background(rm)
    x0, y0, x1, y1 = detect.detection_roi(rm)
    blurred = cv2.GaussianBlur(rm.small(img)[y0:y1, x0:x1], (3, 3), 0)
    in_ring = detect.ring_mask(rm)[y0:y1, x0:x1]
    fast = fast_objects(blurred, rm._bg_feats, in_ring, 3.0)
    assert len(fast[0]) >= 3   # both coins and chips
    assert fast == dense_objects(blurred, rm._bg_feats, in_ring, 3.0)


def test_measuring_objects_together_equals_measuring_each_alone():
    spec = scenes.make(31, "valid", chips=4)
    rm = bench.site(spec, 31)
    img, _ = render.render_scene(spec, np.random.default_rng(31))
    blobs = detect.find_blobs(img, rm, measure_max_coins=4.0)
    together = [b for b in blobs if b.axes is not None]
    assert len(together) >= 3
    for b in together:
        alone = copy.deepcopy(b)
        alone.axes = alone.plane_center = alone.chroma = None
        alone.extra.pop("inliers")
        detect.measure(img, rm, alone, _thr(img, rm))
        assert (alone.plane_center, alone.axes, alone.angle_deg, alone.fit_err, alone.chroma, alone.extra) == \
            (b.plane_center, b.axes, b.angle_deg, b.fit_err, b.chroma, b.extra)


def _thr(img, rm):
    x0, y0, x1, y1 = detect.detection_roi(rm)
    blurred = cv2.GaussianBlur(rm.small(img)[y0:y1, x0:x1], (3, 3), 0)
    return dense_objects(blurred, rm._bg_feats, detect.ring_mask(rm)[y0:y1, x0:x1], 1.0)[1]


@given(st.lists(st.floats(-1e4, 1e4, width=32), min_size=1, max_size=60))
def test_median_is_numpys(values):
    a = np.array(values, np.float32).reshape(-1, 1)
    assert detect._median(a) == float(np.median(a))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10 ** 6))
def test_cv2s_labels_come_in_raster_order_of_their_first_2x2_block(seed):
    """The order equal areas keep (foreground_objects sorts ties by it)."""
    rng = np.random.default_rng(seed)
    mask = (rng.random((rng.integers(1, 40), rng.integers(1, 40))) < rng.uniform(0.05, 0.6)).astype(np.uint8)
    n, lbl = cv2.connectedComponentsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)
    ys, xs = np.nonzero(mask)
    assert (np.diff(detect._first_blocks(lbl[ys, xs], xs, ys, n)[1:]) > 0).all()


@given(st.lists(st.floats(0, 60, width=32), min_size=1, max_size=60), st.sampled_from([45.0, 28.0]))
def test_level_is_four_medians_or_the_floor(values, floor):
    v = np.array(values, np.float32)
    assert detect._level(v, floor) == max(floor, 4.0 * float(np.median(v)))


@given(st.integers(1, 9), st.integers(1, 9), st.integers(0, 10 ** 6),
       st.sampled_from([(3, np.uint8), ((), np.uint8), (3, np.float32), ((), np.float32)]))
def test_every_other_pixel(h, w, seed, kind):
    channels, dtype = kind
    shape = (h, w) if channels == () else (h, w, channels)
    a = (np.random.default_rng(seed).random(shape) * 255).astype(dtype)
    assert np.array_equal(detect._every_other(a), a[::2, ::2])


def test_colour_features_are_the_formula():
    img = np.random.default_rng(5).integers(0, 256, (7, 9, 3)).astype(np.uint8)
    a = img.astype(np.float32)
    s = a.sum(axis=2) + 30
    chroma, log_s = detect.colour_feats(img)
    assert np.array_equal(chroma, a * (300.0 / s)[..., None])
    assert np.allclose(log_s, np.log(s), rtol=1e-6)
