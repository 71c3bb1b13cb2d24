"""One commissioning of a simulated site per test session.

`sim.cameras.commission` (the calibration sheet and the empty ring photographed by every camera,
then ten photos of each coin face, trained: ~12 s) is deterministic: the same cameras, ring,
coin, renderer and random state give the same rig and face model. Several end-to-end fixtures
start a `DemoSession` of the same site; `shared()` makes the second and later ones take a copy
of the first one's rig and face model (and leave the random generator where commissioning
would have left it) instead of photographing and training again. Everything after
commissioning (board, link, host, play) is each session's own."""
import contextlib
import copy
import hashlib
import pickle

import ringctl.sim.cameras as cameras

_done = {}


def _key(cams, ring, coin, rng, render):
    fn = render or cameras.commission
    what = (cams, ring, coin, rng.bit_generator.state, getattr(fn, "__module__", None),
            getattr(fn, "__qualname__", repr(fn)))
    return hashlib.sha256(pickle.dumps(what)).hexdigest()


@contextlib.contextmanager
def shared():
    """Within it, `sim.cameras.commission` is made once per site per test session."""
    real = cameras.commission

    def commission(cams, ring, coin, rng, render=None):
        k = _key(cams, ring, coin, rng, render)
        if k not in _done:
            out = real(cams, ring, coin, rng, render=render)
            _done[k] = (copy.deepcopy(out), rng.bit_generator.state)
        out, state = _done[k]
        rng.bit_generator.state = state
        return copy.deepcopy(out)

    cameras.commission = commission
    try:
        yield
    finally:
        cameras.commission = real
