"""The 1080p stand-in of `ring bench console`: frames at 1920x1080 with moving coins, replayed in
order at the source's pace, and the bench's WebSocket viewers receiving decodable JPEGs."""
import time

import numpy as np

from ringctl.sim.hdcamera import HD, LoopSource, hd_frames


def test_hd_frames_are_1080p_and_the_coins_move():
    frames, ring, cam = hd_frames(n=4)
    assert all(f.shape == (HD[1], HD[0], 3) and f.dtype == np.uint8 for f in frames)
    # each frame differs from the next by more than sensor noise: the coins have moved
    diffs = [np.mean(np.abs(a.astype(int) - b.astype(int)) > 40) for a, b in zip(frames, frames[1:])]
    assert min(diffs) > 1e-4


def test_loop_source_paces_and_loops():
    frames = [np.full((4, 6, 3), k, np.uint8) for k in range(5)]
    src = LoopSource(frames, fps=50.0)
    assert src.size == (6, 4) and src.fps == 50.0
    t0 = time.monotonic()
    got = [src.read() for _ in range(25)]
    took = time.monotonic() - t0
    assert 0.4 <= took < 1.5                       # 25 reads at 50 fps: about half a second
    ts = [t for _, t in got]
    assert all(b > a for a, b in zip(ts, ts[1:]))
    assert {int(f[0, 0, 0]) for f, _ in got} == set(range(5))    # it goes round the loop
