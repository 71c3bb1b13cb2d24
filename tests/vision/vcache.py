"""Session-wide caches of the vision tests' deterministic artefacts (face models, calibrated held-out
scenes, ring training photos). Each is what the uncached call returns for the same arguments
(held-out scenes, the renderer and training are seeded: the same inputs give the same pixels and
the same model), made once per test session and handed out as a fresh copy where a test may
change it (a scene's spec, ring model and frame), so no test sees another's changes.

Nothing here is made inside a test's monkeypatch: a cached artefact is made by the first test
that asks, so tests ask for them outside any patched context (as the uncached calls were)."""
import copy
import json

from ringctl.errors import UserError
from ringctl.sim import heldout, vision_bench as bench
from ringctl.vision import ring as ringmod

_models = {}
_scenes = {}
_ring_photos = {}


def _key(*parts):
    return json.dumps(parts, sort_keys=True, default=repr)


def heldout_model(cfg, n=10):
    """`vision_bench.heldout_model(cfg, n)`, trained once per session per (cfg, n). Face models are
    only read by the judge (the vision tests already share one per module)."""
    k = _key(cfg, n)
    if k not in _models:
        _models[k] = bench.heldout_model(cfg, n)
    return _models[k]


def scene(seed, kind, cfg):
    """(spec, expect, RingModel, frame) of held-out scene `seed`: `heldout.make`, the ring
    calibrated on its empty frame, the frame rendered; raises the calibration's UserError (also
    when cached). Each call returns its own copies."""
    k = _key(seed, kind, cfg)
    if k not in _scenes:
        spec, expect = heldout.make(seed, kind, cfg)
        try:
            rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
        except UserError as e:
            _scenes[k] = e
        else:
            _scenes[k] = (copy.deepcopy(spec), expect, copy.deepcopy(rm), heldout.render_frame(spec, seed))
    got = _scenes[k]
    if isinstance(got, UserError):
        raise UserError(str(got), code=got.code)
    spec, expect, rm, img = got
    return copy.deepcopy(spec), expect, copy.deepcopy(rm), img.copy()


def ring_training_frames(spec, seed, face, n, coins=None):
    """`heldout.ring_training_frames(spec, seed, face, n, coins=coins)` (copies: the photos, and
    each photo's coin appended to `coins`), rendered once per session."""
    k = _key(spec, seed, face, n)
    if k not in _ring_photos:
        laid = []
        _ring_photos[k] = heldout.ring_training_frames(spec, seed, face, n, coins=laid), laid
    photos, laid = _ring_photos[k]
    if coins is not None:
        coins.extend(copy.deepcopy(laid))
    return [p.copy() for p in photos]


def ring_model(spec, seed, rm, n=bench.RING_PHOTOS):
    """`vision_bench.ring_model(spec, seed, rm, n)` from the session's ring training photos."""
    return bench.ring_model(spec, seed, rm, n, frames=ring_training_frames, empty=empty_frame(spec, seed))


_empties = {}


def empty_frame(spec, seed):
    """`heldout.empty_frame(spec, seed)` (a copy), rendered once per session."""
    k = _key(spec, seed)
    if k not in _empties:
        _empties[k] = heldout.empty_frame(spec, seed)
    return _empties[k].copy()
