"""The faster forms of the reader's and detector's hot paths give the same bits as the plain ones."""
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
        np.stack([at[:, list(c)].sum(axis=1) for c in faceid.CUES], 1)


def _feats(rng, n):
    return rng.normal(size=(n, 3, faceid.N_RAD, faceid.N_ANG)).astype(np.float32)


def test_cue_match_radius_first_is_the_plain_sum_bit_for_bit():
    rng = np.random.default_rng(5)
    templates = _feats(rng, 50)
    m = faceid.FaceModel(templates, ["heads"] * 25 + ["tails"] * 25, (0.2, 0.3, 0.5), 1.0, 0.3, 0.1, {}, 24)
    conj = np.conj(faceid._spectrum(templates))
    for f in _feats(rng, 20):
        spec = faceid._spectrum(f)
        got, want = faceid.cue_match(spec, m._spec_conj_r)[:2], _plain_cue_match(spec, conj)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_each_family_picks_the_template_argmax_over_the_masked_scores_picks():
    rng = np.random.default_rng(6)
    labels = ["heads"] * 10 + ["tails"] * 6 + ["heads"] * 4     # the relit family holds no tails
    m = faceid.FaceModel(_feats(rng, 20), labels, (0.2, 0.3, 0.5), 1.0, 0.3, 0.1, {}, 16)
    for f in _feats(rng, 10):
        total, cues, _ = faceid.cue_match(faceid._spectrum(f), m._spec_conj_r)
        want = []
        for fam in [np.ones(20, bool)] + m._families:
            ih = int(np.argmax(np.where((m._lab == 1) & fam, total, -np.inf)))
            it = int(np.argmax(np.where((m._lab == 0) & fam, total, -np.inf)))
            want.append((float(total[ih]), float(total[it]), cues[ih], cues[it]))
        got = m._pairs(f)[0]
        assert [g[:2] for g in got] == [w[:2] for w in want]
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

