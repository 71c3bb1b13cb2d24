"""The faster forms of the reader's and detector's hot paths give the same bits as the plain ones
(the face match: within the last float bits of them)."""
import cv2
import numpy as np

from ringctl.vision import detect, faceid


def _plain_cue_match(spec_a, conj):
    """cue_match as first written: the product summed over radii along the middle axis."""
    corr = np.fft.irfft((spec_a[None] * conj).sum(axis=2), n=faceid.N_ANG, axis=-1)
    norm = float(spec_a.shape[0] * spec_a.shape[1] * faceid.N_ANG)
    total = corr.sum(axis=1)
    best = total.argmax(axis=1)
    at = corr[np.arange(len(corr)), :, best] / norm
    return total[np.arange(len(total)), best] / norm, \
        np.stack([at[:, list(c)].sum(axis=1) for c in faceid.CUES], 1), best


def _feats(rng, n):
    return rng.normal(size=(n, 3, faceid.N_RAD, faceid.N_ANG)).astype(np.float32)


def test_cue_match_as_matrix_products_is_the_plain_sum_within_its_last_float_bits():
    """BLAS adds the radii in its own order: the scores may differ from the plain sum's in the
    last bits of a float32 (about 1e-7 of the correlation), never more, and pick the same rotation."""
    rng = np.random.default_rng(5)
    templates = _feats(rng, 50)
    m = faceid.FaceModel(templates, ["heads"] * 25 + ["tails"] * 25, (0.2, 0.3, 0.5), 1.0, 0.3, 0.1, {}, 24)
    conj = np.conj(faceid._spectrum(templates))
    worst = 0.0
    for f in _feats(rng, 20):
        spec = faceid._spectrum(f)
        total, cues, rot = faceid.cue_match(spec, m._spec_conj_ck)
        want_total, want_cues, want_rot = _plain_cue_match(spec, conj)
        assert np.array_equal(rot, want_rot)
        worst = max(worst, np.abs(total - want_total).max(), np.abs(cues - want_cues).max())
    assert worst < 1e-6   # scores are of order 0.01-1


def test_each_family_picks_the_template_argmax_over_the_masked_scores_picks():
    rng = np.random.default_rng(6)
    labels = ["heads"] * 10 + ["tails"] * 6 + ["heads"] * 4     # the relit family holds no tails
    m = faceid.FaceModel(_feats(rng, 20), labels, (0.2, 0.3, 0.5), 1.0, 0.3, 0.1, {}, 16)
    for f in _feats(rng, 10):
        total, cues, _ = faceid.cue_match(faceid._spectrum(f), m._spec_conj_ck)
        want = []
        for fam in [np.ones(20, bool)] + m._families:
            ih = int(np.argmax(np.where((m._lab == 1) & fam, total, -np.inf)))
            it = int(np.argmax(np.where((m._lab == 0) & fam, total, -np.inf)))
            want.append((float(total[ih]), float(total[it]), cues[ih], cues[it], ih, it))
        got = m._pairs(f)[0]
        assert [g[:2] + g[4:] for g in got] == [w[:2] + w[4:] for w in want]
        assert all(np.array_equal(g[k], w[k]) for g, w in zip(got, want) for k in (2, 3))


def _plain_polar(im):
    """One map as _polar first made it, alone."""
    r, n = faceid.PATCH_R, faceid.N_ANG
    pol = cv2.warpPolar(im, (int(r * faceid.R_OUT) + 1, n), (r, r), r * faceid.R_OUT + 1,
                        cv2.INTER_LINEAR + cv2.WARP_POLAR_LINEAR)
    pol = cv2.resize(pol[:, int(r * faceid.R_IN):], (faceid.N_RAD, n), interpolation=cv2.INTER_LINEAR).T
    pol = pol - pol.mean(axis=1, keepdims=True)
    return pol / (np.sqrt((pol * pol).mean()) + 1e-6)


def test_three_polar_maps_at_once_are_each_map_alone_bit_for_bit():
    rng = np.random.default_rng(7)
    size = 2 * faceid.PATCH_R + 1
    for _ in range(300):
        ims = [(rng.normal(size=(size, size)) * rng.uniform(0.01, 100) + rng.uniform(-5, 5)).astype(np.float32)
               for _ in range(3)]
        got = faceid._polar(ims)
        assert got.flags["C_CONTIGUOUS"] and np.array_equal(got, np.stack([_plain_polar(im) for im in ims]))


def test_means_are_numpys_bit_for_bit():
    rng = np.random.default_rng(8)
    for _ in range(300):
        x = (rng.normal(size=(37, 37)) * rng.uniform(1e-3, 1e3) + rng.uniform(-10, 10)).astype(np.float32)
        assert faceid._mean(x) == float(x.mean()) and faceid._mean(x[faceid._FIELD]) == float(x[faceid._FIELD].mean())
        p = x[:, :36].reshape(3, 12, 37)
        assert np.array_equal(faceid._means(p, 1), p.mean(axis=1, keepdims=True))
        assert np.array_equal(faceid._means(p, (1, 2)), p.mean(axis=(1, 2), keepdims=True))


def test_ray_table_is_the_angles_computed_per_fit():
    rng = np.random.default_rng(9)
    for _ in range(300):
        k = np.sort(rng.choice(detect.N_RAYS, rng.integers(1, detect.N_RAYS + 1), replace=False))
        r = rng.uniform(5, 200, len(k)).astype(np.float32)
        a = 2 * np.pi * k / detect.N_RAYS
        assert np.array_equal(detect._edge_points(511.3, 20.7, k, r), np.stack([511.3 + r * np.cos(a), 20.7 + r * np.sin(a)], 1))


def _plain_face_colour(region, mask=None):
    """face_colour as first written: numpy over the (masked) pixels with no channel clipped."""
    px = region.reshape(-1, 3) if mask is None else region[mask > 0]
    col = lit = px.sum(axis=0, dtype=np.float64) / max(len(px), 1)
    keep = px.max(axis=-1) < detect.CLIP_LEVEL if len(px) else np.zeros(0, bool)
    if detect.UNCLIPPED_MIN * len(px) <= keep.sum() < len(px):
        lit = px[keep].sum(axis=0, dtype=np.float64) / keep.sum()
    return tuple((lit / (lit.sum() + 1e-6)).tolist()), float(col.mean())


def test_a_regions_colour_by_cv2_is_numpys_over_its_unclipped_pixels_bit_for_bit():
    rng = np.random.default_rng(10)
    clipped = clipped_masked = 0
    for _ in range(600):
        big = rng.integers(0, 256, size=(60, 70, 3), dtype=np.uint8)
        lo = int(rng.integers(0, 256))
        big = np.clip(big.astype(int) + lo - 128, 0, 255).astype(np.uint8)   # from all dark to most clipped
        y0, x0 = rng.integers(0, 30, 2)
        region = big[y0:y0 + rng.integers(1, 30), x0:x0 + rng.integers(1, 40)]   # a view, as the fit takes it
        assert detect.face_colour(region) == _plain_face_colour(region)
        mask = np.zeros(big.shape[:2], np.uint8)     # as training draws it: an ellipse of 1s, or nothing
        if rng.random() < 0.9:
            cv2.ellipse(mask, ((float(rng.uniform(0, 70)), float(rng.uniform(0, 60))),
                               (float(rng.uniform(1, 50)), float(rng.uniform(1, 50))), float(rng.uniform(0, 180))), 1, -1)
        assert detect.face_colour(big, mask) == _plain_face_colour(big, mask)
        keep = region.max(axis=-1) < detect.CLIP_LEVEL
        clipped += bool(detect.UNCLIPPED_MIN * keep.size <= keep.sum() < keep.size)
        keep = big[mask > 0].max(axis=-1) < detect.CLIP_LEVEL if mask.any() else np.zeros(0, bool)
        clipped_masked += bool(detect.UNCLIPPED_MIN * keep.size <= keep.sum() < keep.size)
    assert clipped > 50 and clipped_masked > 50   # the unclipped pixels' branch ran, both ways


def test_colour_features_are_numpys_bit_for_bit():
    rng = np.random.default_rng(11)
    for _ in range(100):
        img = rng.integers(0, 256, size=(int(rng.integers(1, 60)), int(rng.integers(1, 60)), 3), dtype=np.uint8)
        a = img.astype(np.float32)
        s = a.sum(axis=-1) + np.float32(30)   # whole numbers: exact in any order
        chroma, log = detect.colour_feats(img)
        assert np.array_equal(chroma, a * (300.0 / s)[..., None]) and np.array_equal(log, cv2.log(s))


def test_the_empty_ring_sampled_through_four_channels_is_the_plain_remap_bit_for_bit():
    """background_at remaps a four-channel copy (half the cost of three): each channel's bits are
    the three-channel remap's, inside the frame and beyond its edges."""
    from ringctl.sim import scenes, vision_bench as bench
    rm = bench.site(scenes.make(31, "valid", chips=4), 31)
    h, q = np.float32(0.5), np.float32(rm.factor)
    w_img, h_img = rm.image_size
    rng = np.random.default_rng(12)
    for _ in range(100):
        shape = (int(rng.integers(1, 150)), int(rng.integers(1, 100)))
        x = rng.uniform(-20, w_img + 20, shape).astype(np.float32)
        y = rng.uniform(-20, h_img + 20, shape).astype(np.float32)
        plain = cv2.remap(detect._blurred_background(rm), (x + h) / q - h, (y + h) / q - h, cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
        assert np.array_equal(detect.background_at(rm, x, y), plain)


def test_faint_specks_by_cv2_are_numpys():
    rng = np.random.default_rng(13)
    for _ in range(200):
        shape = (int(rng.integers(5, 60)), int(rng.integers(5, 60)))
        thr = float(rng.choice([45.0, 4.0 * float(np.float32(rng.uniform(5, 30)))]))
        d = (rng.uniform(0, 1.2, shape) ** 3 * thr * 1.5).astype(np.float32)
        seeds = rng.choice(np.array([0, 1, 255], np.uint8), shape, p=[0.95, 0.03, 0.02])
        in_ring = (rng.random(shape) < 0.7).astype(np.uint8)
        faint = ((d > detect.SPOT_FAINT * thr) & (in_ring > 0)).astype(np.uint8)
        faint[cv2.dilate(seeds, np.ones((3, 3), np.uint8)) > 0] = 0
        if not faint.any():
            want = np.zeros((0, 3))
        else:
            n, _, stats, cent = cv2.connectedComponentsWithStats(faint, 8, cv2.CV_32S)
            want = np.zeros((0, 3)) if n - 1 > detect.SPOT_FAINT_SHARE * in_ring.sum() else \
                np.column_stack([cent[1:] * detect.GRID, stats[1:, cv2.CC_STAT_AREA]])
        assert np.array_equal(detect._faint_specks(d, thr, seeds, in_ring), want)


def test_a_specks_peak_over_its_3x3_cells_is_the_plain_maximum():
    rng = np.random.default_rng(14)
    for _ in range(200):
        shape = (int(rng.integers(30, 80)), int(rng.integers(30, 80)))
        d = rng.uniform(0, 60, shape).astype(np.float32)
        in_ring = (rng.random(shape) < 0.9).astype(np.uint8)
        x, y = rng.uniform(-3, 2 * shape[1] + 3, 12), rng.uniform(-3, 2 * shape[0] + 3, 12)
        v = d[(in_ring > 0) & (d <= 45.0)][::4]
        assert v.size >= 100   # else every speck counts, unmeasured
        floor = detect.SPOT_NOISE * float(np.partition(v, int(0.9 * (v.size - 1)))[int(0.9 * (v.size - 1))])
        gx, gy = (x / detect.GRID).astype(int), (y / detect.GRID).astype(int)
        h, w = shape
        peak = np.max([d[np.clip(gy + j, 0, h - 1), np.clip(gx + i, 0, w - 1)] for i in (-1, 0, 1) for j in (-1, 0, 1)],
                      axis=0)
        assert np.array_equal(detect._over_noise(d, in_ring, 45.0, detect._speck_peaks(d, x, y)), peak > floor)


def test_points_beyond_a_distance_all_at_once_are_as_each_alone():
    """find_blobs asks which objects lie beyond the ring (and two coin radii) for all at once:
    the same answers as each point's own plane point and distance, also right at the limit."""
    from ringctl.sim import scenes, vision_bench as bench
    rm = bench.site(scenes.make(31, "valid", chips=4), 31)
    rng = np.random.default_rng(15)
    lim = rm.radius + 2 * rm.coin_radius_px
    c = np.array(rm.center)
    for _ in range(300):
        pts = [tuple(p) for p in rng.uniform(0, rm.image_size[0], (int(rng.integers(1, 12)), 2))]
        alone = [float(np.hypot(*(rm.plane_points([p])[0] - c))) for p in pts]
        for limit in (lim, alone[0]):   # a point right on the limit: its own measure decides
            want = [d > limit for d in alone]
            assert detect._outside(rm, pts, limit).tolist() == want


def test_cues_agree_as_the_arrays_expression_says():
    """read's cue check in scalars gives the arrays' answer, also where a cue's part of the margin
    lies within a float32 rounding of what it must carry."""
    rng = np.random.default_rng(16)
    need = faceid.CUE_SHARE_MIN * np.array([len(c) / 3 for c in faceid.CUES])
    for _ in range(3000):
        families = []
        for _ in range(int(rng.integers(1, 3))):
            fh, ft = (float(v) for v in rng.uniform(0, 1, 2))
            ch = rng.uniform(0, 1, 2).astype(np.float32)
            ct = (rng.uniform(0, 1, 2) * 10.0 ** rng.integers(-4, 1, 2)).astype(np.float32)
            if rng.random() < 0.5:
                # a cue's part of the margin between its difference in float32 and in double: only
                # the float32 difference (the arrays') decides it
                exact, rounded = float(ch[0]) - float(ct[0]), float(ch[0] - ct[0])
                fh = ft + (exact + rounded) / 2 / need[0]
            families.append((fh, ft, ch, ct, 0, 0))
        sign, margin = int(rng.choice([1, -1])), float(rng.uniform(0, 0.3))
        want = any((fh - ft) * sign >= margin and bool(np.all((ch - ct) * sign >= need * (fh - ft) * sign))
                   for fh, ft, ch, ct, _, _ in families)
        assert faceid._cues_agree(families, sign, margin) == want
